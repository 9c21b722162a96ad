"""Pure statistics: exact tests, intervals, power and pass@k; imports nothing of ours."""
