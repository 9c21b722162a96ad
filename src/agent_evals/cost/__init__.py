"""What model calls cost: usage capture per trial, the price table, and run budgets."""
