"""Sub-commands of the zkbluff CLI, grouped by layer."""
