// The lanes.toml `lanes setup` writes where there is none: every line a comment, so it runs and
// sets nothing (it needs no `lanes allow` as it is), and shows the keys a repository usually
// wants, from the README's reference. test/cli/setup checks that the file uncommented is a valid
// config, so the template cannot drift from what lanes reads.

export const LANES_TOML_TEMPLATE = `# lanes.toml: this repository's lanes configuration, committed with it. Every key is in the
# README's "Configuration (lanes.toml)". Nothing in it runs or is set for you until you ran
# \`lanes allow\` for this exact content (\`lanes allow --show\` prints what it would run); each
# change, and each person's clone, needs its own \`lanes allow\`.

# Ports leased to each session on first use: PORT_WEB, PORT_API in \`lanes env\` and \`lanes exec\`.
# [ports]
# names = ["web", "api"]
# range = "20000-29999"

# Per-session names, so that no two sessions share a database or a compose project; \`strip\`
# removes variables (names or globs) from what \`lanes exec\` children inherit.
# [env]
# APP_DB = "app_{slug}"
# COMPOSE_PROJECT_NAME = "{repo}-{slug}"
# strip = ["ANTHROPIC_API_KEY", "*_API_KEY"]

# Run in each new session's worktree (lanes start --worktree, lanes new) with its environment:
# setup at its start (a failure ends it), teardown at its end.
# [session]
# setup = 'createdb -T app_template "$APP_DB"'
# teardown = 'dropdb "$APP_DB"'
# timeout = "10m"
`;
