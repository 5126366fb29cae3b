"""The composition root: the one place that builds sessions from config, store, provider and tools."""
