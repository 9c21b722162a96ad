"""Adapters around the core: scorers, result platforms and message converters."""
