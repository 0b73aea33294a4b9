"""Fix plans (always computed, a dry run) and their atomic, snapshotted application."""
