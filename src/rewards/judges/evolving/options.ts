// The options of `judge-evolving-rubric` (reward.ts; docs/rewards/judges.md#rubrics-that-evolve-judge-evolving-rubric).
import { z } from 'zod';
import { failurePolicySchema, judgeEndpointSchema } from '../options.ts';
import { DEFAULT_RUBRIC_TEMPLATE } from '../rubric.ts';
import { DEFAULT_DECOMPOSE_TEMPLATE } from './elicit.ts';

export const evolvingRubricOptionsSchema = judgeEndpointSchema.extend({
  /** rler: one elicitation per group from all its responses; online-rubrics: one per pair of responses. */
  method: z.enum(['rler', 'online-rubrics']).default('rler'),
  /** Persistent criteria for every problem (with each problem's own `metadata.rubric`); may be absent. */
  criteria: z.array(z.unknown()).optional(),
  rubricFile: z.string().optional(),
  /** Active evolving criteria kept per problem (DR Tulu's max_active_rubrics). */
  maxActive: z.number().int().positive().max(64).default(5),
  /** New criteria one elicitation may add. */
  maxNew: z.number().int().positive().max(32).default(4),
  /** online-rubrics: pairs compared per group. */
  pairs: z.number().int().positive().max(16).default(2),
  /** Criteria per grading call (default: all in one). */
  maxCriteria: z.number().int().positive().optional(),
  template: z.string().default(DEFAULT_RUBRIC_TEMPLATE),
  elicitTemplate: z.string().optional(),
  decomposeTemplate: z.string().default(DEFAULT_DECOMPOSE_TEMPLATE),
  /** RRD's refinement; absent: RLER's filter alone. */
  refine: z
    .strictObject({
      /** A criterion satisfied by at least this share of a group is decomposed. */
      decomposeAbove: z.number().gt(0).max(1).default(0.9),
      /** Decomposition depth limit (a child of a child is depth 2). */
      maxDepth: z.number().int().min(0).max(8).default(2),
      /** An evolving criterion correlating at least this much with an earlier one is redundant. */
      redundantAbove: z.number().gt(0).max(1).default(0.95),
      /** One correlating at or below minus this with the rest of the rubric is misaligned. */
      misalignedBelow: z.number().gt(0).max(1).default(0.5),
      /** Correlation-aware weights (RRD) instead of equal ones. */
      correlationWeights: z.boolean().default(true),
    })
    .optional(),
  onFailure: failurePolicySchema.default('zero'),
});

export type EvolvingRubricOptions = z.output<typeof evolvingRubricOptionsSchema>;

export const WHERE = "reward 'judge-evolving-rubric'";
