"""What agents print and what their providers' parsers make of it."""
