import { http, HttpResponse } from 'msw';
import type { CreateDatabaseRequest, CreateRoleRequest, Database, DbRole, UpdateRoleRequest } from '../../../contracts/databases';
import { problem } from '../msw';

export const aDatabase = (overrides: Partial<Database> = {}): Database => ({
  name: 'app',
  owner: 'app',
  sizeBytes: 7_654_321,
  isDefault: true,
  system: false,
  ...overrides,
});

export const aRole = (overrides: Partial<DbRole> = {}): DbRole => ({
  name: 'app',
  login: true,
  superuser: false,
  owner: true,
  managed: false,
  memberOf: [],
  ...overrides,
});

const validation = (field: string, message: string) =>
  HttpResponse.json(
    { type: 'about:blank', title: 'One or more validation errors occurred.', status: 400, errors: { [field]: [message] } },
    { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
  );

interface DatabaseServerOptions {
  databases?: Database[];
  roles?: DbRole[];
  /** GET …/databases answers 500 (the section's error state). */
  failDatabases?: boolean;
  /** The owner's password after a rotation. */
  rotatedPassword?: string;
}

/**
 * A pg instance's databases and roles from a mutable fake, as the server keeps them: drops refuse
 * the default and system databases and roles Warden did not make; every change is written to
 * `calls` with its body.
 */
export function databaseServer(options: DatabaseServerOptions = {}) {
  const state = {
    databases: options.databases ?? [aDatabase(), aDatabase({ name: 'postgres', owner: 'postgres', sizeBytes: 7_500_000, isDefault: false, system: true })],
    roles: options.roles ?? [aRole(), aRole({ name: 'postgres', owner: false, superuser: true })],
    reads: 0,
  };
  const calls: string[] = [];
  const bodies: unknown[] = [];

  const handlers = [
    http.get('/instances/:id/databases', () => {
      state.reads += 1;
      if (options.failDatabases) return problem(500, 'Internal Server Error');
      return HttpResponse.json(state.databases);
    }),
    http.post('/instances/:id/databases', async ({ request }) => {
      const body = (await request.json()) as CreateDatabaseRequest;
      calls.push(`POST database ${body.name}`);
      bodies.push(body);
      if (!/^[a-z_][a-z0-9_]*$/.test(body.name)) return validation('name', 'must match pattern "^[a-z_][a-z0-9_]{0,62}$"');
      if (state.databases.some((db) => db.name === body.name)) return problem(409, 'Conflict', `database "${body.name}" already exists`);
      const database = aDatabase({ name: body.name, owner: body.owner ?? 'app', isDefault: false, sizeBytes: 7_400_000 });
      state.databases = [...state.databases, database];
      return HttpResponse.json(database, { status: 201 });
    }),
    http.delete('/instances/:id/databases/:name', ({ params }) => {
      calls.push(`DELETE database ${params.name}`);
      const database = state.databases.find((db) => db.name === params.name);
      if (!database) return problem(404, 'Not Found', `No database is named ${params.name}.`);
      if (database.isDefault || database.system) return problem(409, 'Conflict', `${database.name} cannot be dropped.`);
      state.databases = state.databases.filter((db) => db !== database);
      return new HttpResponse(null, { status: 204 });
    }),
    http.get('/instances/:id/roles', () => HttpResponse.json(state.roles)),
    http.post('/instances/:id/roles', async ({ request }) => {
      const body = (await request.json()) as CreateRoleRequest;
      calls.push(`POST role ${body.name}`);
      bodies.push(body);
      if (body.name.startsWith('pg_')) return validation('name', `${body.name} is reserved.`);
      const role = aRole({ name: body.name, login: body.login, owner: false, managed: true, memberOf: body.memberOf ?? [] });
      state.roles = [...state.roles, role];
      return HttpResponse.json(role, { status: 201 });
    }),
    http.put('/instances/:id/roles/:name', async ({ params, request }) => {
      const body = (await request.json()) as UpdateRoleRequest;
      calls.push(`PUT role ${params.name}`);
      bodies.push(body);
      const role = state.roles.find((r) => r.name === params.name);
      if (!role) return problem(404, 'Not Found', `No role is named ${params.name}.`);
      const changed = { ...role, name: body.newName ?? role.name, login: body.login ?? role.login, memberOf: body.memberOf ?? role.memberOf };
      state.roles = state.roles.map((r) => (r === role ? changed : r));
      return HttpResponse.json(changed);
    }),
    http.delete('/instances/:id/roles/:name', ({ params }) => {
      calls.push(`DELETE role ${params.name}`);
      const role = state.roles.find((r) => r.name === params.name);
      if (!role) return problem(404, 'Not Found', `No role is named ${params.name}.`);
      if (!role.managed) return problem(409, 'Conflict', `${role.name} was not made through Warden.`);
      state.roles = state.roles.filter((r) => r !== role);
      return new HttpResponse(null, { status: 204 });
    }),
    http.post('/instances/:id/connection/rotate', () => {
      calls.push('POST rotate');
      return HttpResponse.json({ password: options.rotatedPassword ?? 'n3w-R0tated' });
    }),
  ];
  return { state, handlers, calls, bodies };
}
