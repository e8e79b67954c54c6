"""The solution database: its schema and tables, reading rows defensively, the `Position`
record a lookup answers with, export, and `verify`."""
