// Learner presets for `curricula simulate --learner <kind>`. All use 10 difficulty levels (0–9) and the
// model in learner.ts; they differ in floors and in how much of the pool is noise.
import { Registry } from '../../core/registry.ts';
import type { CategorySpec, LearnerSpec } from './learner.ts';

const baseCategories: CategorySpec[] = [
  // Solved at every level from the start: practising it teaches nothing.
  { name: 'arithmetic', kind: 'easy', initialSkill: 12, learningRate: 0.04 },
  // Level 0 at 73%, level 3 at 12%, level 9 at 0.03%: learnable from the easy end.
  { name: 'algebra', kind: 'learnable', initialSkill: 1, learningRate: 0.04 },
  // Learns only once algebra's skill reaches 5 (levels ≤ 4 mostly solved).
  {
    name: 'geometry',
    kind: 'prerequisite',
    initialSkill: 0,
    learningRate: 0.04,
    prerequisite: 'algebra',
    unlockAt: 5,
  },
  // A coin flip whatever is learned: high reward variance, nothing to learn.
  { name: 'noise', kind: 'noise', initialSkill: 0, learningRate: 0, noiseRate: 0.5 },
];

export const learners = new Registry<LearnerSpec>('learner', (registry) =>
  registry
    .register('irt', {
      name: 'irt',
      description: 'σ(skill − difficulty); easy, learnable, prerequisite-gated and noise categories',
      categories: baseCategories,
      levels: 10,
      guess: 0,
      slip: 0,
    })
    .register('irt-guess-slip', {
      name: 'irt-guess-slip',
      description: 'as irt with floors: guess 0.1 (lucky answers), slip 0.05 (careless errors)',
      categories: baseCategories,
      levels: 10,
      guess: 0.1,
      slip: 0.05,
    })
    .register('noisy', {
      name: 'noisy',
      description: 'as irt plus two more noise categories (3 of 6 categories unlearnable)',
      categories: [
        ...baseCategories,
        { name: 'riddles', kind: 'noise', initialSkill: 0, learningRate: 0, noiseRate: 0.5 },
        { name: 'trivia', kind: 'noise', initialSkill: 0, learningRate: 0, noiseRate: 0.3 },
      ],
      levels: 10,
      guess: 0,
      slip: 0,
    }),
);
