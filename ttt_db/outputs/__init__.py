"""What the solution is turned into, read from the stored core: its statistics (`stats`), the
export's rows in arrays (`export_rows`) written as JSON lines or CSV (`export`) or as a Parquet data
set with its card (`dataset`)."""
