"""Stand-in for NeMo in tests/t-nemo-driver.sh."""
