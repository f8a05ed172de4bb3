/** How much of an input a message echoes: enough to recognise it, never a whole pasted file. */
const SHOWN_INPUT_CHARS = 40;

/** Input as echoed in a message: its first characters and its length when it is long. */
export function shownInput(text: string): string {
  return text.length > SHOWN_INPUT_CHARS ? `${text.slice(0, SHOWN_INPUT_CHARS)}... (${text.length} characters)` : text;
}

/** Every long word of a message (such as one a parser echoed) shortened as shownInput does. */
export function shownWords(message: string): string {
  return message.replace(new RegExp(`\\S{${SHOWN_INPUT_CHARS + 1},}`, 'g'), shownInput);
}
