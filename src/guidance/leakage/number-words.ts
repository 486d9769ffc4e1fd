// English number words to digits, for the leakage guard (normalise.ts): "one hundred and twenty-nine" is
// 129, "twelve" 12, "one two nine" three numbers 1 2 9 (a digit word after a digit word starts a new
// number, so a spelled-out digit string reads as its digits), "zero" 0. Cardinals up to the millions;
// ordinals, fractions and "a hundred" are not read (no task answers with them).

const units: Record<string, number> = {
  zero: 0,
  oh: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const tens: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const scales: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000 };

/** True for a word this reader takes as part of a number ('and' only between number words). */
export function isNumberWord(word: string): boolean {
  return word in units || word in tens || word in scales;
}

/**
 * The numbers a run of number words spells, in order (words lower-case, 'and' already dropped): a new
 * number starts where the next word cannot continue the current one (a unit after a unit or a teen, a
 * tens word after a unit or a tens word).
 */
export function readNumbers(words: readonly string[]): number[] {
  const numbers: number[] = [];
  let total = 0; // completed thousands/millions
  let current = 0; // below the last scale
  let last: 'none' | 'unit' | 'teen' | 'tens' | 'hundred' | 'scale' = 'none';
  const flush = () => {
    if (last !== 'none') numbers.push(total + current);
    total = 0;
    current = 0;
    last = 'none';
  };
  for (const word of words) {
    if (word in units) {
      const value = units[word];
      if (last === 'unit' || last === 'teen' || (last === 'tens' && value >= 10)) flush();
      current += value;
      last = value >= 10 ? 'teen' : 'unit';
    } else if (word in tens) {
      if (last === 'unit' || last === 'teen' || last === 'tens') flush();
      current += tens[word];
      last = 'tens';
    } else if (word === 'hundred') {
      if (last === 'none' || last === 'hundred' || last === 'scale') flush();
      current = (current === 0 ? 1 : current) * 100;
      last = 'hundred';
    } else if (word in scales) {
      if (last === 'none') flush();
      total += (current === 0 ? 1 : current) * scales[word];
      current = 0;
      last = 'scale';
    }
  }
  flush();
  return numbers;
}
