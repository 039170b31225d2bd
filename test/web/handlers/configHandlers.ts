import { http, HttpResponse } from 'msw';
import type { ConfigParameter, ConfigRevision, InstanceConfig, UpdateConfigRequest, UpdateConfigResponse } from '../../../contracts/instances';
import type { ApplyChoice } from '../../../src/features/instances/configApi';
import { problem } from '../msw';
import { aParameter, anInstance } from './instancesHandlers';
import { pageOf } from './pages';

/** A few pg parameters, one of each editor kind. */
export const pgParameters: ConfigParameter[] = [
  aParameter({
    name: 'max_connections',
    value: '100',
    default: '100',
    type: 'integer',
    min: 1,
    max: 262143,
    apply: 'restart',
    description: 'Sets the maximum number of concurrent connections.',
  }),
  aParameter({
    name: 'work_mem',
    apply: 'reload',
    value: '4096',
    default: '4096',
    type: 'integer',
    unit: 'kB',
    min: 64,
    max: 2147483647,
    description: 'Sets the maximum memory to be used for query workspaces.',
  }),
  aParameter({ name: 'log_connections', apply: 'reload', value: 'off', default: 'off', type: 'bool', description: 'Logs each successful connection.' }),
  aParameter({
    name: 'log_min_messages',
    apply: 'reload',
    value: 'warning',
    default: 'warning',
    type: 'enum',
    enumValues: ['debug1', 'info', 'notice', 'warning', 'error'],
    description: 'Sets the message levels that are logged.',
  }),
  aParameter({
    name: 'random_page_cost',
    apply: 'reload',
    value: '4',
    default: '4',
    type: 'real',
    min: 0,
    max: 1.79769e308,
    description: 'Sets the planner’s estimate of the cost of a nonsequentially fetched disk page.',
  }),
  aParameter({
    name: 'application_name',
    apply: 'reload',
    value: '',
    default: '',
    type: 'string',
    description: 'Sets the application name to be reported in statistics and logs.',
  }),
];

export const aRevision = (overrides: Partial<ConfigRevision> & Pick<ConfigRevision, 'revision'>): ConfigRevision => ({
  author: 'ada@example.com',
  createdAt: '2025-03-04T05:06:07.000Z',
  changes: [],
  parameters: {},
  ...overrides,
});

type Answer = (body: UpdateConfigRequest) => Response | undefined;

/**
 * GET /instances/{id}, its configuration and revisions, from a mutable fake that applies PUT and
 * restore. `answer` may replace the PUT's answer (a 400, a 409); every call is logged.
 */
export function configServer({
  instance = anInstance(),
  parameters = pgParameters,
  pendingRestart = [] as string[],
  revisions = [] as ConfigRevision[],
  answer = (() => undefined) as Answer,
} = {}) {
  const state = {
    instance,
    config: { revision: revisions[0]?.revision ?? 0, parameters: [...parameters], pendingRestart: [...pendingRestart] } as InstanceConfig,
    revisions: [...revisions],
  };
  const calls: string[] = [];
  const bodies: unknown[] = [];

  // Like pg: a restart-only change saved without a restart waits for one.
  const save = (values: Record<string, string>, apply: ApplyChoice = 'reload'): UpdateConfigResponse => {
    const changed = state.config.parameters.filter((parameter) => parameter.name in values);
    const restart = changed.filter((parameter) => parameter.apply === 'restart').map(({ name }) => name);
    state.config = {
      ...state.config,
      revision: state.config.revision + 1,
      pendingRestart: apply === 'restart' ? state.config.pendingRestart : [...new Set([...state.config.pendingRestart, ...restart])].sort(),
      parameters: state.config.parameters.map((parameter) =>
        parameter.name in values ? { ...parameter, value: values[parameter.name] } : parameter,
      ),
    };
    state.revisions.unshift(
      aRevision({
        revision: state.config.revision,
        changes: changed.map(({ name, value }) => ({ name, from: value, to: values[name] })),
      }),
    );
    return {
      revision: state.config.revision,
      reload: changed.filter(({ apply }) => apply === 'reload').map(({ name }) => name),
      restart,
      applied: ({ none: 'none', reload: 'reloaded', restart: 'restarting' } as const)[apply],
    };
  };

  const handlers = [
    http.get('/instances/:id', () => HttpResponse.json(state.instance)),
    http.get('/instances/:id/config', () => HttpResponse.json(state.config)),
    http.put('/instances/:id/config', async ({ request }) => {
      const body = (await request.json()) as UpdateConfigRequest;
      calls.push('PUT config');
      bodies.push(body);
      return answer(body) ?? HttpResponse.json(save(body.parameters, body.apply));
    }),
    http.get('/instances/:id/config/revisions', ({ request }) => {
      const query = new URL(request.url).searchParams;
      calls.push(`GET revisions page=${query.get('page')} pageSize=${query.get('pageSize')}`);
      return HttpResponse.json(pageOf(state.revisions));
    }),
    http.post('/instances/:id/config/revisions/:revision/restore', async ({ params, request }) => {
      const revision = state.revisions.find((candidate) => candidate.revision === Number(params.revision));
      calls.push(`POST restore ${params.revision}`);
      bodies.push(await request.json());
      if (!revision) return problem(404, 'Not Found', 'No such revision.');
      return HttpResponse.json(save(revision.parameters));
    }),
    http.post('/instances/:id/restart', () => {
      calls.push('POST restart');
      state.instance = { ...state.instance, operation: { kind: 'restart', startedAt: '2025-03-04T05:06:07.000Z' } };
      return HttpResponse.json(state.instance, { status: 202 });
    }),
  ];
  return { state, handlers, calls, bodies };
}
