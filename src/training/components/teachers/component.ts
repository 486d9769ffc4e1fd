// Run component `teachers`: the run's frozen teachers (teacher.pool, a privileged scorer's self-teacher;
// components/teachers/teacher-setup.ts) and the two phases that use them: teacher help after grading (AMPO, guidance with
// a `teacherHelp` hook; components/teachers/teacher-help-round.ts) and the distillation term of the advantages (OPD,
// privileged-hint; components/teachers/distillation.ts). Metrics: the phase's teacher/… and the pool's call counts.
import type { Teachers } from '../../../teachers/teacher-pool.ts';
import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { type Distillation, distillationPhase } from './distillation.ts';
import { teacherHelpRound } from './teacher-help-round.ts';
import { buildTeachers, validatePrivilegedScorer, validateTeacherBlock } from './teacher-setup.ts';

export interface TeachersComponent extends BuiltComponent {
  /** The pool (null: none built; teacher help then refuses to run). Replaceable by tests. */
  teachers: Teachers | null;
  /** The distillation phase's settings; null = no phase. */
  distillation: Distillation | null;
}

export const teachersComponent = defineRlComponent({
  id: 'teachers',
  block: 'teacher',
  validate: validateTeacherBlock,
  // A guidance's privileged scorer names its teacher (initial, current or a pool entry).
  check: ({ config, guidance }) => validatePrivilegedScorer(config, guidance),
  description:
    'teacher.pool: teacher help after grading (AMPO) and the distillation term (OPD, privileged-hint)',
  async create({ config, guidance, policy, pool, request }): Promise<TeachersComponent> {
    // Built even without teachers: teacher help asks the run's guidance at each step and refuses to run
    // without a pool (teacher-help-round.ts).
    const built = await buildTeachers(config, guidance, policy, pool, request);
    let stepMetrics: Record<string, number> = {};
    const component: TeachersComponent = {
      id: 'teachers',
      teachers: built.teachers,
      distillation: built.distillation,
      hooks: {
        afterGrade: ({ ctx, step, timer }, groups) =>
          ctx.guidance.teacherHelp
            ? timer.timeAsync('teacher_help', () => teacherHelpRound(ctx, component.teachers, groups, step))
            : Promise.resolve(),
        async advantageTerms({ timer }, groups, estimate) {
          stepMetrics = {};
          const distillation = component.distillation;
          if (!distillation) return undefined;
          const result = await timer.timeAsync('teacher', () =>
            distillationPhase(distillation, groups, estimate),
          );
          stepMetrics = result.metrics;
          return result.tokenAdvantages;
        },
      },
      metrics: () => ({ ...stepMetrics, ...component.teachers?.takeMetrics() }),
      close: async () => {
        await component.teachers?.close();
      },
    };
    return component;
  },
});

/** The run's teachers component (tests and tools reach the pool through it). */
export function teachersOf(ctx: Pick<RlContext, 'components'>): TeachersComponent | undefined {
  return findComponent<TeachersComponent>(ctx.components, 'teachers');
}
