import type { Command } from 'commander';

/** Commands whose modules may not exist yet in a partial checkout are registered when present. */
export async function registerOptionalCommands(program: Command): Promise<void> {
  void program;
}
