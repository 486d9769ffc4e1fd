// A minimal Tinker HTTP client for the server tests (real HTTP on loopback): JSON and protobuf posts,
// and a retrieve_future loop. Not the product client (that is the Tinker backend, src/backends/tinker).
import {
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  encodeForwardBackwardRequest,
  type ForwardBackwardOutput,
  type ForwardBackwardRequest,
  protobufContentType,
  type SampleResponse,
} from '../../../backends/tinker/wire/index.ts';

export class TestTinkerClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}/api/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey, ...headers },
      body: JSON.stringify(body),
    });
  }

  async json(path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
    const response = await this.post(path, body, headers);
    const value = (await response.json()) as any;
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(value)}`);
    return value;
  }

  async postProtobuf(
    request: ForwardBackwardRequest,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.baseUrl}/api/v1/forward_backward`, {
      method: 'POST',
      headers: { 'content-type': protobufContentType, 'x-api-key': this.apiKey, ...headers },
      body: encodeForwardBackwardRequest(request),
    });
  }

  /** create_session + create_model (LoRA rank 8) on `baseModel`; the new model's id. */
  async createModel(baseModel: string): Promise<string> {
    const session = await this.json('create_session', { tags: [], user_metadata: {}, sdk_version: '0.25.0' });
    const created = await this.call('create_model', {
      session_id: session.session_id,
      model_seq_id: 0,
      base_model: baseModel,
      lora_config: { rank: 8 },
    });
    if (created.type !== 'create_model')
      throw new Error(`create_model: unexpected result ${JSON.stringify(created)}`);
    return created.model_id;
  }

  /** Polls retrieve_future until the result (or error) is there; protobuf results decoded. */
  async retrieve(requestId: string, accept = `${protobufContentType}, application/json`): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const response = await this.post(
        'retrieve_future',
        { request_id: requestId, allow_metadata_only: true },
        { accept },
      );
      const type = response.headers.get('content-type') ?? '';
      if (type.includes(protobufContentType)) return new Uint8Array(await response.arrayBuffer());
      const body = (await response.json()) as any;
      if (!response.ok) throw new Error(`retrieve_future: HTTP ${response.status} ${JSON.stringify(body)}`);
      if (body.type !== 'try_again') return body;
    }
    throw new Error(`future ${requestId} never completed`);
  }

  async forwardBackward(request: ForwardBackwardRequest): Promise<ForwardBackwardOutput> {
    const response = await this.postProtobuf(request);
    const envelope = (await response.json()) as any;
    if (!response.ok)
      throw new Error(`forward_backward: HTTP ${response.status} ${JSON.stringify(envelope)}`);
    const result = await this.retrieve(envelope.request_id);
    if (!(result instanceof Uint8Array))
      throw new Error(`forward_backward failed: ${JSON.stringify(result)}`);
    return decodeForwardBackwardOutput(result);
  }

  async sample(body: unknown): Promise<SampleResponse> {
    const envelope = await this.json('asample', body);
    const result = await this.retrieve(envelope.request_id);
    if (!(result instanceof Uint8Array)) throw new Error(`asample failed: ${JSON.stringify(result)}`);
    return decodeSampleResponse(result);
  }

  /** POSTs a mutating call and waits for its JSON result. */
  async call(path: string, body: unknown): Promise<any> {
    const envelope = await this.json(path, body);
    return this.retrieve(envelope.request_id, 'application/json');
  }
}
