"""Configuration: the one frozen settings object (declared once, read once from the environment)
and the logging set-up shared by every entry point."""
