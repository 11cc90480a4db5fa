/**
 * What reads as a person's prose in a message: sentences outside code blocks and code lines, and the
 * sentences that state a rule or a decision. Used by the extractive summarizer; pure.
 */

/**
 * A sentence that states a standing rule: one that constrains later work, not only the request it
 * is in. It names its standing in words ("always", "never", "from now on", "every time", "going
 * forward", "in future", "whenever", "remember to", "at all times", "for all …", "unless I ask",
 * "without asking"). One-off scoping ("Do not change other parts.", "Only UI changes.", "Do not add
 * new features." repeated in every request of an Aider session) is part of its request, which is
 * kept verbatim in the requests section, and is not repeated as a rule.
 */
export const RULE =
  /\b(always|never|from now on|(every|each) time|going forward|in (the )?future|whenever|remember (to|that)|at all times|for (all|every|any) (future |later |new )?(files?|changes?|commits?|tasks?|requests?|code)|unless I (ask|say)|without (asking|my)|no matter|for the rest of|throughout|don't ever|do not ever|must (always|never)|as a rule|by default)\b/i;
/**
 * A prohibition or obligation with an object, in any casing: "do not", "don't", "must not", "should
 * not", "never", "must" followed by a verb and at least one more word ("DO NOT touch or destroy any
 * resources in the old project", "Do not proceed to the next phase until I approve"). Verbs that
 * report rather than forbid ("I don't know", "it must be failing", "you don't need to") are not.
 * One-off scoping of the request it is in ({@link SCOPING}) is not a rule.
 */
export const PROHIBITION =
  /\b(?:do not|don't|dont|must not|mustn't|should not|shouldn't|may not|never|must)\s+(?:ever\s+)?(?!(?:know|see|understand|think|get|seem|look|appear|recall|believe|find|exist|matter|happen|care|mind|work|need|have|has|had|be \w+ing)\b)[a-z][\w-]*\s+\S/i;
/**
 * The scope of one request ("Do not change other parts.", "Do not add new features.", "don't touch
 * anything else"): bounds that request only, which is kept verbatim in the requests section.
 */
export const SCOPING = /\b(?:other|anything else|else|unrelated|new (?:features?|functionality)|the rest|more than)\b/i;
/**
 * Words that say a sentence lasts beyond its request even as an item of a list: a list item inside a
 * long specification is part of that request unless it says so.
 */
const STANDING =
  /\b(?:from now on|going forward|in general|for (?:all|every|any)\b|at all times|in (?:the )?future|as a rule|whenever|every time)/i;

/**
 * An obligation to have something ("Both must have "dev" in their names."): `must have` with an
 * object, not a guess about the past ("it must have failed", "must have been") nor `must have to`.
 */
const MUST_HAVE = /\bmust\s+have\s+(?!(?:to|been|got)\b|\w+(?:ed|en)\b)\S+\s+\S/i;
/** Things a request asks to build or change, as the subject of its goal ("the Cloud Run service", "this app"). */
const WORK_ITEM = String.raw`(?:application|app|project|code(?:base)?|repo(?:sitory)?|service|system|site|website|program|platform|solution|deployment|infrastructure|database|bucket|cluster|server|instance|pipeline|api|endpoint|page|feature|module|component)`;
/** A definite thing of the request's work: `the`, `this`, `our` or `my`, up to three words naming it, then a {@link WORK_ITEM}. */
const WORK_SUBJECT = String.raw`(?:this|the|our|my)\s+(?:[\w.-]+\s+){0,3}?${WORK_ITEM}`;
/** A state brought about, not kept: a participle other than kept, left, preserved or unchanged ("explicitly configured"). */
const BROUGHT_ABOUT = String.raw`(?:\w+ly\s+)?(?!(?:kept|left|preserved|untouched|unchanged)\b)\w+(?:ed|en|t)\b`;
/**
 * A goal statement: the work item itself (this application, the Cloud Run service, the project) as
 * the subject of a passive obligation ("This application must be refactored to run in the new
 * infrastructure.", "The Cloud Run service must be configured to run as the runner account."), or an
 * obligation to see it brought to that state ("You must ensure that the Cloud Run service is
 * explicitly configured to run as the mra-app-runner service account."): what the request asks for,
 * kept with it, not a rule over later work. A state kept ("must be left as is") is a rule.
 */
const GOAL = new RegExp(
  String.raw`^(?:please\s+)?(?:${WORK_SUBJECT}\s+(?:must|needs? to|has to|should|will need to)\s+be|(?:(?:you|we)\s+)?(?:must|need to|have to|should|will need to)\s+(?:ensure|make sure|verify|confirm)\s+(?:that\s+)?${WORK_SUBJECT}\s+(?:is|are|gets?|get)|(?:ensure|make sure)\s+(?:that\s+)?${WORK_SUBJECT}\s+(?:is|are|gets?|get))\s+${BROUGHT_ABOUT}`,
  'i',
);
/** Words that make a goal's state a lasting bound: a negation, or a time it holds at ("before each deploy"). */
const LASTING = /\b(?:not|never|no|before|after|until|whenever|each|every)\b/i;
/**
 * A pointer: a prohibition whose object is only a word pointing elsewhere ("DO NOT skip this.",
 * "Don't forget it!"): what it forbids is in the text it points at, which the request keeps.
 */
const POINTER =
  /^(?:please\s+)?(?:do not|don't|dont|never|must not)\s+(?:ever\s+)?[a-z][\w-]*\s+(?:this|that|it|these|those|them)(?:\s+(?:step|part|one))?\s*[.!]*$/i;
/**
 * An imperative over every instance of the agent's own later actions, with when it applies ("Explain
 * each command you'd like to execute before asking to execute."): each, or every, thing the agent
 * will do, then before, after, until, once or when. It governs each later such action; "Explain each
 * step of the migration plan before you start" is about one plan, part of its request.
 */
const EVERY_INSTANCE =
  /^(?:please\s+)?(?!(?:the|this|that|these|those|it|i|we|you|my|our|a|an|there|here|each|every|all)\b)[a-z]+\s+(?:each|every)\s+\w+(?:\s+\w+)?\s+(?:that\s+|which\s+)?(?:you|i)\b[^.!?]*\b(?:before|after|until|once|when)\b/i;

/**
 * An obligation whose subject points back at the items of its own request ("Both must have "dev" in
 * their names." after "create a database and a bucket", "It should return JSON."): a detail of what
 * that request asks for, kept with it in the requests section, not a rule over later work.
 */
const ANAPHOR_SUBJECT =
  /^(?:both|either|neither|it|they|these|those|(?:each|all|both) of (?:them|these|those)|all (?:two|three|four|five))\s+(?:\w+\s+)?(?:must|should|shall|needs? to|has to|have to)\b/i;

/**
 * A note passed on for information, not an instruction: a sentence led by a label that names it one
 * ("Security note: Hardcoded password is only for local dev testing – never commit to git.", "Note:",
 * "NB:", "FYI", "Warning:", "Disclaimer:", "Caveat:", "Tip:"), often pasted from a tool's or another
 * assistant's output. It tells the agent something; it does not constrain its later work.
 */
const NOTE_LABEL =
  /^(?!(?:important|critical|strict)\b)(?:[\p{L}-]+\s+)?(?:note|notice|nb|n\.b\.|fyi|warning|disclaimer|caveat|tip|hint|heads[- ]up|p\.s\.)\s*[:–—]/iu;
/**
 * A statement of what there is ("However, there is a major architectural shift you must account for:
 * We are completely dropping Firebase."): it describes the work, and an obligation inside it belongs to
 * the thing it describes, not to later work.
 */
const THERE_IS =
  /^(?:(?:however|but|also|and|so|now|first|note that)\s*,?\s+)?(?:there|here)(?:\s+(?:is|are|was|were|will be)\b|'s\b)/i;
/**
 * What ends just before a prohibition that gives the purpose of the sentence's own task ("We need to
 * create a new database so we do not overwrite any production data."): the reason for that task, not
 * a rule of its own.
 */
const PURPOSE_BEFORE =
  /\b(?:so(?: that)?|in order|such that|lest|to make sure|to ensure|ensuring)\s+(?:(?:we|i|you|it|they|this|that|the \w+)\s+)?$/i;
/**
 * What ends just before a prohibition inside a relative clause ("transformers that do not modify the
 * input values", "a helper which must not block"): it describes the thing named before it, as a task's
 * title or a goal does; it asks nothing of later work.
 */
const RELATIVE_BEFORE = /\b(?:that|which|who)\s+$/i;
const PROHIBITIONS = new RegExp(PROHIBITION.source, 'gi');

/**
 * Whether a sentence of a typed request is a standing rule: not a note passed on for information
 * ({@link NOTE_LABEL}) nor a pointer ({@link POINTER}); it names
 * its standing ({@link RULE}); or, not being a goal statement ({@link GOAL}) without a lasting bound
 * ({@link LASTING}), a detail of its own request's items ({@link ANAPHOR_SUBJECT}) nor a statement of
 * what there is ({@link THERE_IS}), it asks something of every instance of an action
 * ({@link EVERY_INSTANCE}), or is a prohibition or obligation with an object ({@link PROHIBITION},
 * {@link MUST_HAVE}), not the purpose of its own task ({@link PURPOSE_BEFORE}) nor inside a relative
 * clause ({@link RELATIVE_BEFORE}), that is not one-off scoping ({@link SCOPING}).
 * Source for both the extractive notes and the retention's constraint sentences.
 */
export function isRuleSentence(s: string): boolean {
  const t = s.trim();
  if (NOTE_LABEL.test(t) || POINTER.test(t)) return false;
  if (RULE.test(t)) return true;
  if ((GOAL.test(t) && !LASTING.test(t)) || ANAPHOR_SUBJECT.test(t) || THERE_IS.test(t)) return false;
  if (EVERY_INSTANCE.test(t)) return true;
  // A prohibition that gives the purpose of the sentence's own task is that task's reason; one in a
  // relative clause describes a thing.
  const directives = [...t.matchAll(PROHIBITIONS)].filter((m) => {
    const before = t.slice(0, m.index);
    return !PURPOSE_BEFORE.test(before) && !RELATIVE_BEFORE.test(before);
  });
  const m = directives[0] ?? MUST_HAVE.exec(t);
  return m !== undefined && m !== null && !SCOPING.test(t.slice(m.index));
}

/**
 * A sentence that states a decision with its reason: a choice ("decided", "chose", "went with",
 * "switched to", "opted", "use X instead of Y", "rather than", "prefer") and a reason ("because",
 * "since", "so that", "due to", "to avoid", "in order to", "as it", "which means"), both.
 */
export const DECISION =
  /\b(decided|decide to|chose|choose|went with|go with|switch(ed|ing)?|opt(ed)? (for|to)|instead of|rather than|prefer(red)?|picked|settled on)\b[\s\S]*\b(because|since|so that|due to|to avoid|in order to|as (it|this|that|they)|which (means|keeps|avoids)|the reason)\b|\b(because|since|due to|to avoid)\b[\s\S]*\b(decided|chose|went with|switch(ed|ing)?|instead of|rather than|opted)\b/i;
/** Narration, offers and questions: never a decision ("First, the user wants…", "If you'd rather…", "Let me…"). */
export const NOT_DECISION =
  /^(first|then|next|now|let me|let's|i'll|i will|i need|if\b|the user|user\b|should|would|could|do you|shall)\b|\?\s*$/i;

/** A line that reads as prose a person wrote (not code, a listing, a heading or tool output). */
export function isProse(line: string): boolean {
  const t = line.trim();
  return (
    t.length > 8 &&
    t.length < 400 &&
    /^[\p{L}"'(]/u.test(t) &&
    !/^\d+\t/.test(t) &&
    !/[│┌└├]/.test(t) &&
    /\s/.test(t) &&
    !looksLikeCode(t)
  );
}

/**
 * A line of source code rather than a sentence: a call or assignment at its start, a statement end,
 * an arrow or strict comparison, or dense code punctuation (over one character in eight).
 */
function looksLikeCode(t: string): boolean {
  if (
    /^[\w$.]+\s*\(|^(const|let|var|return|import|export|function|if|for|while)\b[^,]*[=({]|[;{}]\s*$|=>|[!=]==|\bconsole\.\w/.test(
      t,
    )
  )
    return true;
  const punctuation = t.match(/[(){}[\];=<>`$\\|&]/g)?.length ?? 0;
  return punctuation * 8 > t.length;
}

/** Text without fenced code blocks (what is between ``` lines is code or output, not sentences). */
function withoutFences(text: string): string {
  return text.includes('```') ? text.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```[^\n]*$/gm, '') : text;
}

export function sentences(text: string): string[] {
  return withoutFences(text)
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A list item: `- `, `* `, `• `, `1. `, `1) ` then text. */
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+\S/;

/** Characters of a rule sentence, at most: a longer one is dropped, never cut (its request is kept verbatim). */
export const MAX_RULE_CHARS = 400;

/**
 * Patterns with a Unicode property are made once here: the bundler writes such a literal as a
 * `new RegExp(...)` call, which made one per line or word tested.
 */
const LOWER_START = /^\p{Ll}/u;
/** A word of letters ending in `s` (see {@link singular}). */
const PLURAL_WORD = /^\p{L}+s$/u;

/**
 * Lines of a request with the lines a terminal or editor wrapped joined again: a line that does not
 * end a sentence (no `.`, `!`, `?` or `:` at its end) goes on in the next line when that one starts in
 * lower case. A list item, a heading and a blank line always start a line of their own.
 */
function unwrapped(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const prev = out.length ? out[out.length - 1] : undefined;
    if (prev && line && LOWER_START.test(line) && !/[.!?:]["')\]]*$/.test(prev) && !/^#/.test(prev))
      out[out.length - 1] = `${prev} ${line}`;
    else out.push(line);
  }
  return out;
}

/**
 * A title that marks what follows as the user's lasting instructions ("# Waterfront project –
 * persistent instructions for Aider", "Project rules:", "Rules to always follow"): persistent,
 * standing, permanent, global or project instructions, rules, guidelines or conventions; rules to
 * follow for the whole project or session.
 */
const PERSISTENT_TITLE =
  /\b(?:persistent|standing|permanent|global|project|house|ground)\s+(?:instructions?|rules?|guidelines?|conventions?)\b|\b(?:instructions?|rules?|guidelines?|conventions?)\s+(?:to\s+(?:always\s+)?follow|for\s+(?:this|the|all|every)\s+(?:project|repo(?:sitory)?|codebase|session|conversation|tasks?|requests?))\b/i;
/** Characters of a title line, at most: a longer line is a sentence, not a title. */
const MAX_TITLE_CHARS = 120;
/** Lines of a block of lasting instructions kept as rules, at most. */
const MAX_BLOCK_LINES = 60;
/** A markdown heading: its level (group 1). */
const HEADING = /^(#{1,6})\s/;

/**
 * The lines of a block of a typed request that the user marked as lasting instructions: from a title
 * ({@link PERSISTENT_TITLE}; a markdown heading, or the request's first line) to the next heading of
 * the same level or higher, or the request's end, each non-empty line outside code blocks trimmed,
 * the title first, at most {@link MAX_BLOCK_LINES}. The block is kept as standing rules line by line,
 * whole, whatever each line says. Undefined when the request has no such title.
 */
export function persistentBlock(typed: string): string[] | undefined {
  if (!PERSISTENT_TITLE.test(typed)) return undefined;
  const lines = withoutFences(typed).split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  for (let i = first; i >= 0 && i < lines.length; i++) {
    const line = lines[i].trim();
    const level = HEADING.exec(line)?.[1].length;
    // A title: a heading, or the first line ending in a colon or of a few words without a sentence end.
    const titled =
      level !== undefined ||
      (i === first && (line.endsWith(':') || (line.split(/\s+/).length <= 8 && !/[.!?]$/.test(line))));
    if (!titled || line.length > MAX_TITLE_CHARS || !PERSISTENT_TITLE.test(line)) continue;
    const out = [line];
    for (let j = i + 1; j < lines.length && out.length < MAX_BLOCK_LINES; j++) {
      const l = lines[j].trim();
      const next = HEADING.exec(l)?.[1].length;
      if (level !== undefined && next !== undefined && next <= level) break;
      if (l && l.length <= MAX_RULE_CHARS) out.push(l);
    }
    return out;
  }
  return undefined;
}

/**
 * A sentence that scopes a rule to the change it comes with ("for this change", "this time", "for
 * now"): it bounds that request only.
 */
const ONE_OFF =
  /\b(?:for|in|with|during)\s+(?:this|that|the)\s+(?:change|fix|task|request|step|edit|commit|pr|pass|round)\b|\bthis time\b|\bfor now\b/i;

/**
 * Whether the rule sentence `rule` of the typed request `request` is scoped to that request: it does
 * not name its standing ({@link RULE}: "always", "never", "from now on"…), and it says it holds for
 * this change ({@link ONE_OFF}) or comes in a request that asks for a change of its own (a sentence of
 * prose that states no rule). Such a rule holds until a later request changes what it protected; a
 * rule that names its standing stands, with the exception named beside it.
 */
export function isRequestScoped(rule: string, request: string): boolean {
  if (RULE.test(rule)) return false;
  if (ONE_OFF.test(rule)) return true;
  const flat = rule.replace(/\s+/g, ' ');
  return sentences(request).some((s) => isProse(s) && !flat.includes(s.replace(/\s+/g, ' ')) && !isRuleSentence(s));
}

/**
 * The sentences of a typed request that state a rule, each whole (a sentence the user's terminal
 * wrapped over lines is read as one). A rule that ends in a colon ("options must include:") takes the
 * list lines that follow it, so it is never quoted without what it requires. A rule longer than
 * {@link MAX_RULE_CHARS} is left out rather than cut. A request holding a block the user marked as
 * lasting instructions ({@link persistentBlock}) gives that block's lines.
 */
export function ruleSentences(typed: string): string[] {
  // A block the user marked as lasting instructions is kept line by line, whole, first.
  const block = persistentBlock(typed);
  if (block) return block;
  const lines = unwrapped(withoutFences(typed));
  const out: string[] = [];
  // A request with three list items or more is a specification: its items are that request's.
  const spec = lines.filter((l) => LIST_ITEM.test(l)).length >= 3;
  for (let i = 0; i < lines.length; i++) {
    if (spec && LIST_ITEM.test(lines[i]) && !STANDING.test(lines[i])) continue;
    const parts = lines[i]
      .split(/(?<=[.!?])\s+/)
      .map((s) => s.trim())
      .filter(Boolean);
    for (let k = 0; k < parts.length; k++) {
      let s = parts[k];
      if (!isProse(s) || !isRuleSentence(s)) continue;
      if (k === parts.length - 1 && s.endsWith(':')) {
        const list: string[] = [];
        for (let j = i + 1; j < lines.length && list.length < 8; j++) {
          const item = lines[j].trim();
          if (!item) {
            if (list.length) break;
            continue;
          }
          if (!LIST_ITEM.test(item)) break;
          list.push(item);
        }
        if (list.length) s = `${s} ${list.join(' ')}`;
      }
      if (s.replace(/\s+/g, ' ').length <= MAX_RULE_CHARS) out.push(s);
    }
  }
  return out;
}

/** A prohibition's verb (group 1) and what it forbids (group 2) ("Do NOT modify public pages (booking, root layout)."). */
const FORBIDS =
  /\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't)\s+(?:ever\s+)?(modify|change|touch|edit|alter|update|remove|delete|rename|move|replace|refactor|rewrite|use|add|hardcode|commit|push|deploy)\s+((?:[^.;:!?–—]|[.:](?=\S))+)/i;
/** Verbs that forbid the same thing: any change to it. */
const CHANGE_VERB = /^(?:modify|change|touch|edit|alter|update|replace|refactor|rewrite)$/i;
/** Words of a forbidden object that name no item of their own (leading words, joins). */
const NOT_ITEM_WORDS = new Set([
  'the',
  'any',
  'all',
  'existing',
  'other',
  'my',
  'our',
  'your',
  'a',
  'an',
  'and',
  'or',
  'of',
  'in',
  'on',
  'to',
  'for',
  'with',
]);
/** Nouns for a part of a page or a program that any of them names alike ("the Supabase card", "the Supabase section"). */
const PART_NOUN = new Set([
  'card',
  'section',
  'part',
  'block',
  'panel',
  'component',
  'area',
  'box',
  'tile',
  'widget',
  'element',
]);
/** Words that keep, bound or forbid rather than ask for a change: a sentence with one overrides nothing. */
const KEEPS = /\b(?:not|don't|dont|never|no|keep|leave|unchanged|as is|except|without|only|preserve|untouched)\b/i;
/** Leading words of a forbidden item that do not name it. */
const ITEM_LEAD = /^(?:the|any|all|existing|other|my|our|your|a|an)\s+/i;

/** A word without a plural `s`, lower case: "Cards" and "card" name the same thing. */
function singular(word: string): string {
  const w = word.toLowerCase();
  return w.length > 3 && PLURAL_WORD.test(w) && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** `text` as words in the singular, space separated, padded with spaces for whole-word search. */
function wordsOf(text: string): string {
  return ` ${(text.match(/[\p{L}\p{N}_./@-]+/gu) ?? []).map((w) => singular(w.replace(/[.]+$/, ''))).join(' ')} `;
}

/**
 * What a prohibition forbids, as items a later request may name: the phrases of two words or more
 * and the file names of its object, split at commas, "and", "or" and parentheses ("public/customer
 * pages (booking, confirmation, home, root layout)" → "public/customer pages", "root layout"). A
 * single plain word ("booking", "logic") names too much to tell: it is no item.
 */
function forbiddenItems(rule: string): string[] {
  const m = FORBIDS.exec(rule);
  if (!m) return [];
  const out: string[] = [];
  // Separators kept (odd indexes): "Supabase or Environment cards" shares "cards" across "or".
  const parts = m[2].split(/([(),]|\s+(?:and|or)\s+)/i);
  for (let k = 0; k < parts.length; k += 2) {
    let item = parts[k]
      .trim()
      .replace(ITEM_LEAD, '')
      .replace(/\s+(?:anywhere|at all|again)$/i, '');
    const next = (parts[k + 2] ?? '').trim().replace(ITEM_LEAD, '').split(/\s+/);
    const joined = k + 1 < parts.length && /^\s+(?:and|or)\s+$/i.test(parts[k + 1]);
    if (joined && /^[\p{L}-]+$/u.test(item) && next.length === 2) item = `${item} ${next[1]}`;
    const words = item.split(/\s+/).filter(Boolean);
    if (words.length >= 2 || (words.length === 1 && /\w\.[a-z]{1,6}$/i.test(words[0]))) out.push(wordsOf(item));
  }
  return out;
}

/**
 * What the prohibition `rule` forbids, as one key two rules that forbid the same share ("do not
 * change Supabase or Environment cards" and "Do NOT change Supabase card or Environment card." and
 * "Do not change Supabase or Environment sections."): its verb (any change verb as one), then the
 * words of its object in the singular, sorted, without joins and nouns for a part ({@link PART_NOUN});
 * undefined for a sentence that forbids nothing {@link FORBIDS} reads.
 */
export function prohibitionKey(rule: string): string | undefined {
  const m = FORBIDS.exec(rule);
  if (!m) return undefined;
  const words = objectWords(m[2]);
  if (!words.length) return undefined;
  const verb = CHANGE_VERB.test(m[1]) ? 'change' : m[1].toLowerCase();
  return `${verb}: ${[...new Set(words)].sort().join(' ')}`;
}

/** The words of a forbidden object that name what it is, in the singular (joins and nouns for a part left out). */
function objectWords(object: string): string[] {
  return wordsOf(object)
    .trim()
    .split(' ')
    .filter((w) => w && !NOT_ITEM_WORDS.has(w) && !PART_NOUN.has(w));
}

/**
 * Words that reverse an earlier prohibition rather than ask for one change: a permission ("you can
 * now modify", "feel free to change", "it's fine to touch", "is allowed again") or the rule itself
 * lifted ("ignore my earlier rule", "the restriction no longer applies").
 */
const PERMITS =
  /\b(?:you (?:can|may)(?: now| also)?|feel free to|(?:it'?s|it is) (?:now )?(?:ok(?:ay)?|fine|allowed) to|(?:are|is) (?:now )?allowed|allowed again|go ahead and|from now on)\b/i;
/** Words that lift a rule as such ("ignore the earlier restriction", "that rule no longer applies"). */
const LIFTS =
  /\b(?:(?:ignore|disregard|forget|drop|lift|remove|cancel|revoke)\s+(?:(?:the|my|that|this|your)\s+)?(?:(?:earlier|previous|above|old|former)\s+)?(?:rule|restriction|constraint|instruction|limitation|ban)s?|(?:rule|restriction|constraint|limitation|ban)s?\s+(?:no longer|does not|doesn't|do not|don't)\s+appl(?:y|ies)|no longer (?:off[- ]limits|forbidden|restricted|protected))\b/i;

/** Nouns for the stages work is done in ("phase 2", "the next step", "each milestone"). */
const STAGE_NOUN = String.raw`(?:phase|stage|step|milestone|part|round|iteration|sprint)s?`;
/**
 * A rule that holds until the person has reviewed or approved each stage of the work ("Do not proceed
 * to the next phase until I review and approve your work."): a stage in the rule, then `until` (or
 * `before`, `without`) and a review or approval. Its condition is read in the later requests
 * ({@link conditionMet}).
 */
const UNTIL_REVIEWED = new RegExp(
  String.raw`\b${STAGE_NOUN}\b[^.;!?]*\b(?:until|till|before|unless|without)\b[^.;!?]*\b(?:review|approv|sign(?:s|ed)?[- ]?off|ok(?:ay)?s?\b|green[- ]light|go[- ]ahead)`,
  'i',
);
/** Words that say a stage is over: complete, done, finished, approved, signed off. */
const STAGE_OVER = String.raw`(?:complete[d]?|done|finished|approved|accepted|signed[- ]off)`;
/**
 * A sentence that says every stage of the work is over ("Approved - All phases complete", "all the
 * steps are done", "the final phase is approved", "approved all phases"): no stage is left to review.
 */
const ALL_STAGES_OVER = new RegExp(
  String.raw`\b(?:all|every|each)\s+(?:of\s+)?(?:the\s+|my\s+|our\s+|your\s+|\d+\s+)?${STAGE_NOUN}\b(?:\s+[\w'-]+){0,3}?\s+${STAGE_OVER}\b|\b(?:final|last)\s+${STAGE_NOUN}\b(?:\s+[\w'-]+){0,3}?\s+${STAGE_OVER}\b|\b${STAGE_OVER}\s+(?:all|every)\s+(?:of\s+)?(?:the\s+)?${STAGE_NOUN}\b`,
  'i',
);
/** A negation or doubt before the words that say the stages are over ("not all phases are done"). */
const NOT_OVER = /\b(?:not|never|isn't|aren't|no|yet)\b|n't\b/i;

/**
 * The sentence of a later request `request` that meets the condition of the rule `rule` when the rule
 * holds only until each stage is reviewed ({@link UNTIL_REVIEWED}): one saying every stage is over
 * ({@link ALL_STAGES_OVER}), not negated nor asked. With no stage left to review, such a rule no longer
 * applies; an approval of one stage ("Approved - proceed to Phase 2") leaves it standing for the
 * next. Undefined when the rule has no such condition or no sentence meets it.
 */
export function conditionMet(rule: string, request: string): string | undefined {
  if (!UNTIL_REVIEWED.test(rule)) return undefined;
  return sentences(request).find((s) => {
    const m = ALL_STAGES_OVER.exec(s);
    return m !== null && !/\?\s*$/.test(s) && !NOT_OVER.test(s.slice(0, m.index + m[0].length));
  });
}

/** How a later request changes a standing prohibition (see {@link ruleChange}). */
export interface RuleChange {
  /** The sentence of the later request that changes the rule. */
  by: string;
  /**
   * `reversed`: the sentence explicitly reverses the whole rule (it no longer stands);
   * `exception`: it asks for work on part of what the rule forbids, once or by a permission that
   * covers only part of it (the rule stands, with the exception beside it).
   */
  kind: 'reversed' | 'exception';
}

/**
 * How a later request `request` changes the prohibition `rule`, undefined when it does not:
 *
 * - `reversed` when one of its sentences explicitly reverses the rule: a permission ({@link PERMITS})
 *   naming all the rule forbids (every item, {@link forbiddenItems}, or every word of its object), or the rule lifted as such
 *   ({@link LIFTS}) with one of its items named ("You can now change the Supabase and Environment
 *   cards." after "Do not change Supabase or Environment cards.");
 * - `exception` when a sentence asks for work on what the rule forbids without reversing all of it
 *   ("Fix the hydration warning in the page and root layout."): a one-off change, or a permission for
 *   one of its items, is an exception to the rule, which still stands for the rest;
 * - undefined when no sentence names what it forbids, or those that do keep, bound or forbid it again
 *   ("leave the root layout unchanged").
 *
 * A reversal found in any sentence wins over an exception in an earlier one. A rule that held only
 * until each stage of the work was reviewed is `reversed` by a sentence saying every stage is over
 * ({@link conditionMet}): its condition was met.
 */
export function ruleChange(rule: string, request: string): RuleChange | undefined {
  // A rule that held until every stage was reviewed ends when the person says all are over.
  const met = conditionMet(rule, request);
  if (met !== undefined) return { by: met, kind: 'reversed' };
  const items = forbiddenItems(rule);
  if (!items.length) return undefined;
  let exception: string | undefined;
  for (const s of sentences(request)) {
    const words = wordsOf(s);
    const named = items.filter((i) => words.includes(i));
    if (!named.length) continue;
    // A permission reverses the rule when it names all the rule forbids: every item, or every word of its object.
    const whole =
      named.length === items.length || objectWords(FORBIDS.exec(rule)![2]).every((w) => words.includes(` ${w} `));
    if ((PERMITS.test(s) && whole) || LIFTS.test(s)) return { by: s, kind: 'reversed' };
    if (!KEEPS.test(s) || PERMITS.test(s)) exception ??= s;
  }
  return exception === undefined ? undefined : { by: exception, kind: 'exception' };
}

/**
 * The sentence of a later request `request` that forbids again what the sentence `exception` (an
 * exception an earlier request made to a standing rule, see {@link ruleChange}) asked for, undefined
 * when none does: a prohibition ({@link FORBIDS}) whose object the exception names, by every word of
 * it ("Do not touch the root layout." after "Fix the warning in the status page and root layout.") or
 * by a code name in it ("Do NOT use the full <MachineCard /> component anywhere." after "Environment
 * card: <MachineCard status="ok" />"). The exception then no longer stands; the rule does.
 */
export function revokingSentence(exception: string, request: string): string | undefined {
  const asked = wordsOf(exception);
  const askedNames = new Set(codeNames(exception));
  for (const s of sentences(request)) {
    const m = FORBIDS.exec(s);
    if (!m) continue;
    const words = objectWords(m[2]).filter((w) => /[\p{L}\p{N}]/u.test(w) && !/^(?:anywhere|again|ever)$/.test(w));
    if (words.length && words.every((w) => asked.includes(` ${w} `))) return s;
    if (codeNames(m[2]).some((n) => askedNames.has(n))) return s;
  }
  return undefined;
}

/**
 * The names in `text` that are code, not prose: a word with a capital inside (`MachineCard`,
 * `useState`), or with a dot, slash or underscore between its letters (`config.ts`, `src/app`,
 * `MAX_RETRIES`).
 */
function codeNames(text: string): string[] {
  return (text.match(/[A-Za-z_$][\w$]*(?:[./][\w$]+)*/g) ?? []).filter(
    (w) => /[a-z][A-Z]/.test(w) || /\w[._/]\w/.test(w),
  );
}
