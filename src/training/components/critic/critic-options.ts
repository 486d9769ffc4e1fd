// The `algorithm.critic` block of the train config (component.ts): a learned value model for GAE
// (`algorithm.advantage: { name: gae }`, src/algorithms/advantages/gae.ts). Defaults from verl's PPO
// config (ppo_trainer.yaml algorithm.gamma/lam, critic/critic.yaml): γ 1, λ 1, value clip 0.5, critic lr
// 1e-5 (constant: verl's warm-up ratio 0), weight decay 0.01, gradient clip 1.0, the critic's epochs the
// actor's (ppo_epochs), advantages whitened over the batch.
import { z } from 'zod';

export const criticSchema = z
  .strictObject({
    /** The critic's starting checkpoint (a policy checkpoint: its trunk); absent = the run's init. */
    checkpoint: z.string().min(1).optional(),
    /** γ: the discount (verl algorithm.gamma: 1). */
    gamma: z.number().min(0).max(1).default(1),
    /** λ: the GAE trace (verl algorithm.lam: 1). */
    lambda: z.number().min(0).max(1).default(1),
    /** The critic's learning rate, constant (verl critic.optim.lr: 1e-5). */
    learningRate: z.number().min(0).default(1e-5),
    /** ε of the clipped value loss, relative to the values at sampling (verl cliprange_value: 0.5). */
    valueClip: z.number().positive().default(0.5),
    /** AdamW weight decay of the critic (verl critic.optim.weight_decay: 0.01). */
    weightDecay: z.number().min(0).default(0.01),
    /** The critic's gradient-norm clip; 0 = none (verl critic.grad_clip: 1.0). */
    gradClip: z.number().min(0).default(1),
    /** Critic passes over each step's batch; absent = algorithm.epochs (verl: ppo_epochs, the actor's). */
    epochs: z.number().int().positive().optional(),
    /** Whiten the GAE advantages over every loss token of the batch (verl: always). */
    whiten: z.boolean().default(true),
    /** Seed of the fresh value head's init; absent = the run's seed. */
    seed: z.number().int().optional(),
  })
  .optional();

export type CriticOptions = NonNullable<z.output<typeof criticSchema>>;
