// The answer vote shared by maj@k (src/eval/majority.ts) and the TTRL majority-vote reward
// (majority-vote.ts): the answer given most often wins. Samples with no extracted answer (null) abstain;
// answers are grouped by a key function (default: trimmed text; pass a normaliser so that '0.50' and
// '1/2' vote together); a tie goes to the class whose first member appears earliest. It sits here, below
// both, so that rewards never import eval (ARCHITECTURE.md, layout).

export interface MajorityOptions {
  /** Maps an answer to its equivalence key (default: trimmed text). */
  key?: (answer: string) => string;
}

export interface MajorityVote {
  /** The winning answer (the text of its earliest sample), or null when no sample had an answer. */
  answer: string | null;
  /** Index of the earliest sample of the winning class, or −1. */
  index: number;
  /** Votes for the winning class. */
  votes: number;
}

const defaultKey = (answer: string) => answer.trim();

/** Majority vote over all given answers (nulls abstain). */
export function majorityVote(
  answers: readonly (string | null)[],
  options: MajorityOptions = {},
): MajorityVote {
  const key = options.key ?? defaultKey;
  const classes = new Map<string, { index: number; votes: number }>();
  answers.forEach((answer, index) => {
    if (answer === null) return;
    const name = key(answer);
    const entry = classes.get(name);
    if (entry === undefined) classes.set(name, { index, votes: 1 });
    else entry.votes += 1;
  });
  let best: { index: number; votes: number } | undefined;
  for (const entry of classes.values()) {
    if (
      best === undefined ||
      entry.votes > best.votes ||
      (entry.votes === best.votes && entry.index < best.index)
    ) {
      best = entry;
    }
  }
  if (best === undefined) return { answer: null, index: -1, votes: 0 };
  return { answer: answers[best.index], index: best.index, votes: best.votes };
}
