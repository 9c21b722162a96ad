"""Framework run results and histories -> OpenAI chat messages, read by shape (no framework is imported)."""
