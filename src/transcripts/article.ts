/**
 * English indefinite article for a role or record type in messages about a recording ("an
 * assistant message", "a user message"). By spelling: of the names it is used with (roles such as
 * system, user, assistant, tool, developer; record types), those that begin with a, e, i or o begin
 * with a vowel sound, and those with u ("user") do not.
 */
export function withArticle(word: string): string {
  return `${/^[aeio]/i.test(word) ? 'an' : 'a'} ${word}`;
}
