// Hand-written hints for the leakage guard (issue 33): for each built-in task's answer kind, hints that give
// the answer away in every form a writer (or a tutor trained against the guard) can choose, and clean
// hints that help without giving it away — some sharing a digit, a word or a partial result with the
// answer, which a guard must not flag. Labels are ours, written before the guard was measured on them;
// `paraphrase` leaks (the answer said in other words) are beyond a string matcher and are kept in to be
// counted honestly. Read by src/guidance/leakage/leakage-cases.test.ts and experiments/leakage-guard.

export type LeakFormLabel =
  | 'literal'
  | 'words'
  | 'separators'
  | 'case'
  | 'operators'
  | 'equal-value'
  | 'split'
  | 'scattered'
  | 'paraphrase';

export interface LeakCase {
  task: string;
  prompt: string;
  answer: string;
  text: string;
  /** The form of a leak; absent = a clean hint. */
  form?: LeakFormLabel;
}

const addition = { task: 'addition', prompt: '61+68\n', answer: '129' };
const modular = { task: 'modular-chain', prompt: 'mod 13:8;-10;*5;+8\n', answer: '11' };
const countdown = { task: 'countdown', prompt: 'make 139:24,43,32,40\n', answer: '32+40+24+43' };
const compose = { task: 'string-compose', prompt: 'qmuwk|rol|dec|drp\n', answer: 'tvjp' };
const constraints = {
  task: 'constraints',
  prompt: 'end:yolim|start:bilu|sorted\n',
  answer: 'bilu fim hazi kiv ral yolim',
};
const search = { task: 'search-facts', prompt: 'ally of home of Tomo?\n', answer: 'Zoli' };
const unanswerable = { task: 'addition-unanswerable', prompt: '6_+68\n', answer: 'unanswerable' };
const judge = { task: 'constraints-judge', prompt: 'end:kiv|sorted\nbilu kiv fim\n', answer: 'FAIL' };

const leaks = (base: Omit<LeakCase, 'text' | 'form'>, cases: [LeakFormLabel, string][]): LeakCase[] =>
  cases.map(([form, text]) => ({ ...base, form, text }));
const clean = (base: Omit<LeakCase, 'text' | 'form'>, texts: string[]): LeakCase[] =>
  texts.map((text) => ({ ...base, text }));

export const leakageCases: readonly LeakCase[] = [
  ...leaks(addition, [
    ['literal', 'The answer is 129.'],
    ['literal', 'so the total is 129 exactly'],
    ['words', 'It comes to one hundred twenty-nine.'],
    ['words', 'one hundred and twenty nine'],
    ['case', 'One Hundred Twenty-Nine is what you should get'],
    ['separators', 'the sum is 1,29'],
    ['separators', 'write 1 2 9'],
    ['separators', 'it is 1_29'],
    ['equal-value', 'the sum equals 100+29'],
    ['equal-value', 'it is half of 258, i.e. 258/2'],
    ['equal-value', 'about 1.29e2'],
    ['equal-value', 'you should get 129.0'],
    ['equal-value', 'the result is \\frac{258}{2}'],
    ['equal-value', 'it is 130-1'],
    ['equal-value', 'think of 43 x 3'],
    ['equal-value', 'roughly 1.29 × 10^2'],
    ['operators', 'one hundred plus twenty-nine'],
    ['operators', '130 minus 1 is the sum'],
    ['split', 'the first two digits are 12 and the last one is 9'],
    ['split', 'it starts with 12 and ends with 9'],
    ['scattered', 'write 1, then 2, then 9'],
    ['scattered', 'units 9, tens 2, hundreds 1'],
    ['scattered', 'hundreds digit 1; tens digit 2; units digit 9'],
    ['separators', '1-2-9'],
    ['words', 'one two nine'],
    ['paraphrase', 'the sum is one more than 128'],
  ]),
  ...clean(addition, [
    'Add the units first: 1+8.',
    'Remember to carry into the hundreds.',
    'The tens column is 6+6 plus any carry.',
    'Line up 61 and 68 by their units.',
    'The sum has 3 digits.',
    'Start with 1+8=9 in the units.',
    '6+6=12: write 2, carry 1.',
    'Check your answer by subtracting 68 from it.',
    'Compute 61+68 column by column.',
    '68+61 is the same sum in the other order.',
    'The units digit is 9.',
    '1+8+0=09\n6+6+0=12\n',
  ]),
  ...leaks(modular, [
    ['literal', 'you end at 11'],
    ['words', 'the chain ends at eleven'],
    ['equal-value', 'it is 22/2'],
    ['equal-value', 'the last step gives 5+6'],
    ['split', 'a 1 and then another 1'],
    ['literal', '3+8=11, and that is the end'],
  ]),
  ...clean(modular, [
    'Start from 8 and subtract 10, modulo 13.',
    'Apply the steps in order: -10, then *5, then +8.',
    'Negative results wrap around: add 13.',
    'After the first step you have a number below 13.',
  ]),
  ...leaks(countdown, [
    ['literal', '32+40+24+43'],
    ['literal', 'use 32 + 40 + 24 + 43'],
    ['operators', '32 plus 40 plus 24 plus 43'],
    ['equal-value', '24+43+32+40'],
    ['equal-value', '(32+40)+(24+43)'],
    ['equal-value', 'then 72+67 finishes it'],
    ['equal-value', 'add everything: 40+32+43+24'],
  ]),
  ...clean(countdown, [
    'Try adding the two smallest numbers first: 24+32.',
    'You need every number exactly once.',
    '139 is odd, so think about which sums are odd.',
    '32+40=72 is a useful partial sum.',
    'Multiplication makes numbers too large here.',
  ]),
  ...leaks(compose, [
    ['literal', 'the result is tvjp'],
    ['case', 'TVJP'],
    ['separators', 't-v-j-p'],
    ['separators', 't v j p'],
    ['case', 'T.V.J.P'],
    ['separators', 'tv jp'],
  ]),
  ...clean(compose, [
    'Apply rol first, then dec, then drp.',
    'Rotating left moves the first letter to the end.',
    'dec shifts each letter back by one.',
    'drp removes a letter.',
  ]),
  ...leaks(constraints, [
    ['literal', 'bilu fim hazi kiv ral yolim'],
    ['case', 'Bilu Fim Hazi Kiv Ral Yolim'],
    ['separators', 'bilu, fim, hazi, kiv, ral, yolim'],
    ['case', 'BILU-FIM-HAZI-KIV-RAL-YOLIM'],
  ]),
  ...clean(constraints, [
    'Sort the words alphabetically.',
    'The list starts with bilu and ends with yolim.',
    'Every word appears once.',
  ]),
  ...leaks(search, [
    ['literal', 'the answer is Zoli'],
    ['case', 'ZOLI'],
    ['separators', 'Z o l i'],
  ]),
  ...clean(search, ['First look up Tomo.', 'Follow the chain: the home of Tomo, then its ally.']),
  ...leaks(unanswerable, [
    ['case', 'UNANSWERABLE'],
    ['separators', 'un-answerable'],
    ['paraphrase', 'a digit is missing, so it cannot be answered'],
  ]),
  ...clean(unanswerable, [
    'Check whether every digit is present.',
    'Look at the tens digit of the first number.',
  ]),
  ...leaks(judge, [
    ['case', 'fail'],
    ['separators', 'F-A-I-L'],
  ]),
  ...clean(judge, [
    'Check each constraint; any failure makes the verdict negative.',
    'Is the list sorted?',
    'The last word must be kiv.',
  ]),
];
