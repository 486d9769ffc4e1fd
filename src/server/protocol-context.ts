// What a protocol of `curricula serve` is given (the checkpoint, how to load policies, where it may write,
// its limits) and the shape of its registration function. Apart from the protocol registry
// (protocols.ts), which imports the protocols: they import this file, not the registry.
import type { FastifyInstance } from 'fastify';
import type { PolicyBackend } from '../core/policy.ts';
import type { RequestLimits } from './limits.ts';
import type { TinkerOptions } from './tinker/options.ts';

export interface ProtocolContext {
  /** The checkpoint directory being served (its name is the served model's id). */
  checkpoint: string;
  /** The name clients use for the served model (default: the checkpoint directory's base name). */
  modelName: string;
  /** Loads a fresh policy from the checkpoint (each call its own copy of the weights). */
  loadPolicy(): Promise<PolicyBackend>;
  /** Where the server may write (saved weights, sampler checkpoints); never outside it. */
  stateDir: string;
  /**
   * Loads another checkpoint directory the same way: OpenAI weight reloads, Tinker load_weights and
   * samplers (default for OpenAI: in process, 1 worker; Tinker refuses without it).
   */
  loadPolicyFrom?(dir: string): Promise<PolicyBackend>;
  /** Tinker tunables (long-poll hold, seq_id wait, samplers kept); tests shorten them. */
  tinker?: Partial<TinkerOptions>;
  /** Per-request bounds (rows, estimated model memory, training tokens; limits.ts); default defaultRequestLimits. */
  limits?: Partial<RequestLimits>;
}

export type RegisterProtocol = (app: FastifyInstance, context: ProtocolContext) => Promise<void>;
