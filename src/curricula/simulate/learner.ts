// Simulated learners: a latent skill per category, an explicit item-response success model, and a
// learning rule that rewards practice at the edge of competence. Cheap enough to run every selector over
// hundreds of steps and several seeds in seconds; a caricature of RL fine-tuning, not a substitute.
//
// Success model (IRT, one parameter, with optional guess/slip floors):
//   p(success | category c, difficulty d) = guess + (1 − guess − slip) · σ(skill_c − d)
// A noise category ignores skill: p = noiseRate (a coin flip; its GRPO advantages are pure noise).
// A derived problem of the reverse curriculum with a fraction f of its solution revealed counts as
// difficulty d·(1 − f).
// Learning rule: after each step, for every graded group with observed pass rate p̂ = k/G,
//   skill_c += learningRate_c · p̂(1 − p̂)
// so all-correct and all-wrong groups teach nothing (their GRPO advantages are 0) and groups near
// p̂ = 0.5 teach most. A prerequisite category learns nothing until its prerequisite's skill reaches
// `unlockAt`. Noise categories never learn. Skills never decay (no forgetting).
import type { Problem } from '../../core/problem.ts';

export type CategoryKind = 'easy' | 'learnable' | 'prerequisite' | 'noise';

export interface CategorySpec {
  name: string;
  kind: CategoryKind;
  initialSkill: number;
  learningRate: number;
  /** For 'prerequisite': the category whose skill must reach `unlockAt` first. */
  prerequisite?: string;
  unlockAt?: number;
  /** For 'noise': the success probability (default 0.5). */
  noiseRate?: number;
}

export interface LearnerSpec {
  name: string;
  description: string;
  categories: CategorySpec[];
  /** Difficulty levels 0..levels−1 per category. */
  levels: number;
  guess: number;
  slip: number;
}

export interface GradedGroup {
  problem: Problem;
  rewards: readonly number[];
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The difficulty a learner sees: reverse-curriculum problems are easier by the revealed fraction. */
export function effectiveDifficulty(problem: Problem): number {
  const revealed = problem.metadata?.revealedSteps;
  const total = problem.metadata?.totalSteps;
  if (typeof revealed === 'number' && typeof total === 'number' && total > 0) {
    return problem.difficulty * (1 - revealed / total);
  }
  return problem.difficulty;
}

export class SimulatedLearner {
  readonly skills = new Map<string, number>();
  private readonly specs = new Map<string, CategorySpec>();

  constructor(readonly spec: LearnerSpec) {
    for (const category of spec.categories) {
      this.skills.set(category.name, category.initialSkill);
      this.specs.set(category.name, category);
    }
  }

  /** p(success) for category `category` at difficulty `difficulty`. */
  probability(category: string, difficulty: number): number {
    const spec = this.specs.get(category);
    if (spec === undefined) throw new RangeError(`simulated learner: unknown category '${category}'`);
    if (spec.kind === 'noise') return spec.noiseRate ?? 0.5;
    const { guess, slip } = this.spec;
    return guess + (1 - guess - slip) * sigmoid(this.skills.get(category)! - difficulty);
  }

  successProbability(problem: Problem): number {
    return this.probability(problem.category, effectiveDifficulty(problem));
  }

  /** Applies the learning rule for one step's graded groups (all gains computed before any is applied). */
  learn(groups: readonly GradedGroup[]): void {
    const gains = new Map<string, number>();
    for (const { problem, rewards } of groups) {
      const spec = this.specs.get(problem.category);
      if (spec === undefined || spec.kind === 'noise' || rewards.length === 0) continue;
      if (spec.kind === 'prerequisite' && !this.unlocked(spec)) continue;
      let successes = 0;
      for (const reward of rewards) if (reward > 0.5) successes++;
      const p = successes / rewards.length;
      gains.set(spec.name, (gains.get(spec.name) ?? 0) + spec.learningRate * p * (1 - p));
    }
    for (const [name, gain] of gains) this.skills.set(name, this.skills.get(name)! + gain);
  }

  unlocked(spec: CategorySpec): boolean {
    if (spec.prerequisite === undefined) return true;
    return (this.skills.get(spec.prerequisite) ?? 0) >= (spec.unlockAt ?? 0);
  }

  /** Expected held-out accuracy: the mean success probability over every non-noise category × level. */
  heldOutAccuracy(): number {
    let total = 0;
    let count = 0;
    for (const category of this.spec.categories) {
      if (category.kind === 'noise') continue;
      for (let level = 0; level < this.spec.levels; level++) {
        total += this.probability(category.name, level);
        count++;
      }
    }
    return count === 0 ? 0 : total / count;
  }
}
