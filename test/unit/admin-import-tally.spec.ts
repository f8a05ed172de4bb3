import { ImportTally } from '../../tools/admin/import-tally';

test('names the first skipped ids in file order, whatever order their writes finished in', () => {
  const tally = new ImportTally();
  const finishing = [16, 3, 0, 9, 1, 7, 2, 4, 20, 5];
  for (const position of finishing) tally.add(String(30000 + position), position, position === 9);
  expect(tally.skippedText()).toBe(
    '9 skipped (already there, never overwritten: 30000, 30001, 30002, 30003, 30004 and 4 more)',
  );
  expect(tally.created).toBe(1);
  expect(tally.written).toBe(10);
});

test('names every skipped id when there are five or fewer, and says 0 skipped when none was', () => {
  const tally = new ImportTally();
  expect(tally.skippedText()).toBe('0 skipped');
  tally.add('12', 4, false);
  tally.add('10', 1, false);
  tally.add('11', 2, true);
  expect(tally.skippedText()).toBe('2 skipped (already there, never overwritten: 10, 12)');
});
