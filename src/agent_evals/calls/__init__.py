"""Model calls as a run observes them: hooks on httpx transports and the scope of the trial being run."""
