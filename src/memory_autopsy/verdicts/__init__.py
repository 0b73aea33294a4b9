"""The verdict layer: reliability and the ranking that settles a conflict, the weights registry,
what a store believed on a date (as-of), why one fact stands, and the write gate."""
