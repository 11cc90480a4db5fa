/**
 * Runs a command-line command in this process and collects what it prints to standard output; the
 * exit code the command sets is put back, so a test's own exit code is not changed by it.
 */
export async function quiet(
  command: (out: (line: string) => void, note: (line: string) => void) => Promise<void>,
): Promise<string> {
  const lines: string[] = [];
  const exitCode = process.exitCode;
  try {
    await command(
      (l) => lines.push(l),
      () => undefined,
    );
  } finally {
    process.exitCode = exitCode;
  }
  return lines.join('\n');
}
