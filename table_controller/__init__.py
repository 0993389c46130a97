"""Rules engine, table controller, journal, API and dealer screens."""
