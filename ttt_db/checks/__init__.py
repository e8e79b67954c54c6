"""Is an AI solved? The weak and strong checks, and the report built from the database."""
