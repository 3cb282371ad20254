"""Small utilities every layer may use (files, for now)."""
