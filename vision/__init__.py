"""Card detection and identification from the table camera (OpenCV)."""
