// The Tinker wire codec: protobuf (SDK ≥ 0.25) and legacy JSON encodings of the forward_backward request,
// its ForwardBackwardOutput result and the SampleResponse, as plain TypeScript values (types.ts). Used by
// `curricula serve --tinker` and meant for the Tinker client backend as well.
export * from './json-codec.ts';
export { decodeForwardBackwardOutput, encodeForwardBackwardOutput } from './proto-output.ts';
export { decodeForwardBackwardRequest, encodeForwardBackwardRequest } from './proto-request.ts';
export { decodeSampleResponse, encodeSampleResponse } from './proto-sample.ts';
export * from './types.ts';

/** Content type of protobuf bodies on the Tinker wire. */
export const protobufContentType = 'application/x-protobuf';
