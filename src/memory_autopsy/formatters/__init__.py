"""One module per output format; each is a pure function of the report and the rule catalogue."""
