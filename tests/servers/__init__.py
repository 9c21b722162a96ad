"""Real loopback implementations of the protocols the product talks to (GitHub REST, OpenAI, Ollama)."""
