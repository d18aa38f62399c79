// A would-be MCP server that dies at start-up, the way a server missing its API key does.
process.stderr.write('fatal: GITHUB_TOKEN is not set\n');
process.exit(3);
