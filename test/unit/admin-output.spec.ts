import { terminalProgress } from '../../tools/shared/output';

test('progress is redrawn in place on a terminal and cleared at the end', () => {
  const written: string[] = [];
  const output = terminalProgress({ isTTY: true, write: (text: string) => written.push(text) });
  output.progress?.('Importing: 1 of 2 orders (50%)');
  output.progressDone?.();
  expect(written).toEqual(['\r\u001b[2KImporting: 1 of 2 orders (50%)', '\r\u001b[2K']);
});

test('no progress at all when the stream is not a terminal (a pipe, a file, CI)', () => {
  const written: string[] = [];
  expect(terminalProgress({ isTTY: false, write: (text: string) => written.push(text) })).toEqual({});
  expect(terminalProgress({ write: (text: string) => written.push(text) })).toEqual({});
  expect(written).toEqual([]);
});
