"""The council stages. Each is a small async function from a run context to its records."""
