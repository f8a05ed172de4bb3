import { parseCommandLine, synopsis } from '../../tools/admin/args';
import { COMMANDS } from '../../tools/admin/commands';
import { UsageError } from '../../tools/shared/errors';
import { USAGE } from '../../tools/admin/usage';
import { TABLES } from '../../lib/contract/tables';

test('the usage text lists every command of the registry with its synopsis and help', () => {
  expect(COMMANDS.length).toBeGreaterThan(0);
  for (const command of COMMANDS) {
    expect(USAGE).toContain(`  ${synopsis(command)}\n`);
    for (const line of command.help) expect(USAGE).toContain(line);
  }
});

test('each command is found by its name and takes exactly the options its record declares', () => {
  const optionNames = new Set(COMMANDS.flatMap((command) => Object.keys(command.options)));
  for (const command of COMMANDS) {
    for (const option of optionNames) {
      if (Object.hasOwn(command.options, option)) continue;
      const takesValue = COMMANDS.some((other) => other.options[option]?.type === 'string');
      const argv = [...command.name.split(' '), `--${option}`, ...(takesValue ? ['x'] : [])];
      expect(() => parseCommandLine(argv)).toThrow(new UsageError(`${command.name} does not take --${option}`));
    }
  }
});

test('synopsis marks optional options with brackets and shows a string option value', () => {
  expect(
    synopsis({
      name: 'a b',
      arguments: ['<x>'],
      options: { must: { type: 'string', value: 'N', required: true }, flag: { type: 'boolean' } },
    }),
  ).toBe('a b <x> --must N [--flag]');
});

test('the help names every table variable the admin command honours', () => {
  for (const { envVar } of Object.values(TABLES)) expect(USAGE).toContain(envVar);
});
