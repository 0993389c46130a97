"""Serial link to the automatic shuffler / dealing shoe."""
