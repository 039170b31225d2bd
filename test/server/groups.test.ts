import { listAudit } from '../../server/db/audit';
import { noInstancesYet, type GroupInstances } from '../../server/db/groups';
import { pageOf } from '../../server/db/paging';
import { defaultLimits } from '../../server/engines/confinement';
import { InProcessBus, type HubEvent } from '../../server/hub/bus';
import { addUser, cookieLogin, expectProblem, origin, setup, type Harness } from './helpers';

let h: Harness;
let events: HubEvent[];
let admin: string;
let alice: string;
let bob: string;
let ids: { admin: string; alice: string; bob: string; carol: string };

/** Instances as the instances feature will keep them: id → group. Tests put some in groups. */
const instanceGroups = new Map<string, { name: string; groupId: string | null }>();
const fakeInstances: GroupInstances = {
  groupOfInstance: async (_db, id) => instanceGroups.get(id)?.groupId,
  instanceCountOfGroup: async (_db, groupId) => [...instanceGroups.values()].filter((i) => i.groupId === groupId).length,
  instancesOfGroup: async (_db, groupId, window) => {
    const all = [...instanceGroups].filter(([, i]) => i.groupId === groupId).map(([id, i]) => ({ id, name: i.name }));
    return pageOf(window, all.length, all.slice((window.page - 1) * window.pageSize, window.page * window.pageSize));
  },
  moveInstancesOutOfGroup: async (_db, groupId) => {
    const moving = [...instanceGroups.values()].filter((instance) => instance.groupId === groupId);
    for (const instance of moving) instance.groupId = null;
    return moving.length;
  },
};

async function start(groupInstances: GroupInstances = noInstancesYet) {
  const bus = new InProcessBus();
  events = [];
  bus.subscribe((event) => events.push(event));
  instanceGroups.clear();
  h = await setup({ bus, groupInstances });
  ids = {
    admin: (await addUser(h.db, 'root@example.com', 'admin')).id,
    alice: (await addUser(h.db, 'alice@example.com')).id,
    bob: (await addUser(h.db, 'bob@example.com')).id,
    carol: (await addUser(h.db, 'carol@example.com')).id,
  };
  admin = await cookieLogin(h, 'root@example.com');
  alice = await cookieLogin(h, 'alice@example.com');
  bob = await cookieLogin(h, 'bob@example.com');
}
afterEach(() => h.close());

const get = (url: string, cookie = admin) => h.app.inject({ url, headers: { cookie } });
const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, cookie = admin) =>
  h.app.inject({ method, url, ...(payload && { payload }), headers: { cookie, origin } });

async function createGroup(name: string, description?: string) {
  const res = await send('POST', '/groups', { name, ...(description !== undefined && { description }) });
  if (res.statusCode !== 201) throw new Error(`create group failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; name: string };
}

const names = (res: { json(): { items: { name: string }[] } }) => res.json().items.map((g) => g.name);
const groupEvents = () => events.filter((e) => e.event === 'GroupChanged');

describe('creating groups', () => {
  beforeEach(() => start());

  it('answers 201 with the group, records it and tells the groups hub group', async () => {
    const res = await send('POST', '/groups', { name: '  Payments  ', description: 'Card processing' });

    expect(res.statusCode).toBe(201);
    const group = res.json();
    expect(group).toEqual({
      id: expect.any(String),
      name: 'Payments',
      description: 'Card processing',
      memberCount: 0,
      instanceCount: 0,
      createdAt: '2030-01-02T03:04:05.000Z',
      // No quota unless an admin sets one.
      quota: { maxInstances: null, maxBackupBytes: null },
      backupBytes: 0,
      // The server's process limits unless an admin sets the group's own.
      limits: { maxProcesses: null, maxOpenFiles: null, maxMemoryBytes: null },
      defaultLimits,
    });
    expect(groupEvents()).toEqual([
      // A new group has no members yet: only admins hear of it.
      { event: 'GroupChanged', payload: { id: group.id, change: 'created' }, audience: { kind: 'scoped', groups: ['groups'], userIds: [] } },
    ]);
    expect((await listAudit(h.db, 1))[0]).toMatchObject({
      userId: ids.admin,
      action: 'groups.create',
      target: group.id,
      outcome: 'success',
    });
  });

  it('answers 409 for a name taken in any case, and records the failure', async () => {
    await createGroup('Payments');

    const res = await send('POST', '/groups', { name: 'PAYMENTS' });

    expect(expectProblem(res, 409).detail).toBe('A group named PAYMENTS already exists (names are compared ignoring case).');
    expect((await listAudit(h.db, 1))[0]).toMatchObject({ action: 'groups.create', outcome: 'failure', detail: { status: 409 } });
    expect((await get('/groups')).json().total).toBe(1);
  });

  it('refuses a blank or missing name, a too long one and unknown fields', async () => {
    expect(expectProblem(await send('POST', '/groups', { name: '   ' }), 400).errors).toEqual({ name: ['must not be blank'] });
    expect(expectProblem(await send('POST', '/groups', {}), 400).errors).toEqual({ name: ['is required'] });
    expect(expectProblem(await send('POST', '/groups', { name: 'x'.repeat(81) }), 400).errors).toHaveProperty('name');
    expect(expectProblem(await send('POST', '/groups', { name: 'ok', owner: 'me' }), 400).errors).toEqual({
      owner: ['is not a known field'],
    });
  });

  it('is for admins only', async () => {
    expectProblem(await send('POST', '/groups', { name: 'Mine' }, alice), 403);
    expectProblem(await h.app.inject({ method: 'POST', url: '/groups', payload: { name: 'Mine' } }), 401);
  });
});

describe('seeing groups', () => {
  let payments: { id: string };
  let search: { id: string };
  beforeEach(async () => {
    await start();
    payments = await createGroup('Payments');
    search = await createGroup('Search');
    await createGroup('Billing');
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice, ids.carol] });
    await send('POST', `/groups/${search.id}/users`, { userIds: [ids.alice] });
  });

  it('lists every group for admins and only their own groups for regular users', async () => {
    expect(names(await get('/groups'))).toEqual(['Billing', 'Payments', 'Search']);
    expect((await get('/groups', alice)).json()).toMatchObject({ total: 2, items: [{ name: 'Payments', memberCount: 2 }, { name: 'Search' }] });
    expect((await get('/groups', bob)).json()).toEqual({ items: [], total: 0, page: 1, pageSize: 25 });
  });

  it('answers the picker list unpaged and scoped the same way', async () => {
    expect((await get('/groups/all')).json()).toEqual([
      { id: expect.any(String), name: 'Billing' },
      { id: payments.id, name: 'Payments' },
      { id: search.id, name: 'Search' },
    ]);
    expect((await get('/groups/all', alice)).json()).toEqual([
      { id: payments.id, name: 'Payments' },
      { id: search.id, name: 'Search' },
    ]);
    expect((await get('/groups/all', bob)).json()).toEqual([]);
  });

  it('answers one group to members and admins, and the same 404 to outsiders as for no group at all', async () => {
    const expected = { id: payments.id, name: 'Payments', description: '', memberCount: 2, instanceCount: 0 };
    expect((await get(`/groups/${payments.id}`, alice)).json()).toMatchObject(expected);
    expect((await get(`/groups/${payments.id}`)).json()).toMatchObject(expected);

    const hidden = expectProblem(await get(`/groups/${payments.id}`, bob), 404);
    const absent = expectProblem(await get('/groups/no-such-group', bob), 404);
    expect(hidden.detail).toBe(`No group has the id ${payments.id}.`);
    expect({ ...hidden, detail: undefined, requestId: undefined }).toEqual({ ...absent, detail: undefined, requestId: undefined });
    expectProblem(await get(`/groups/${payments.id}/users`, bob), 404);
    expectProblem(await get(`/groups/${payments.id}/instances`, bob), 404);
    expectProblem(await get('/groups/no-such-group'), 404);
  });

  it('stops showing a group to a member once removed', async () => {
    expect((await send('DELETE', `/groups/${payments.id}/users/${ids.alice}`)).statusCode).toBe(204);

    expectProblem(await get(`/groups/${payments.id}`, alice), 404);
    expect(names(await get('/groups', alice))).toEqual(['Search']);
  });
});

describe('paging, sorting and searching groups', () => {
  beforeEach(async () => {
    await start();
    for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo_ops', 'echoXops']) {
      await createGroup(name);
      h.clock.advance(60_000);
    }
  });

  it('sorts by name ignoring case, and by creation, either way', async () => {
    expect(names(await get('/groups'))).toEqual(['Alpha', 'Bravo', 'charlie', 'delta', 'echo_ops', 'echoXops']);
    expect(names(await get('/groups?sort=-name'))).toEqual(['echoXops', 'echo_ops', 'delta', 'charlie', 'Bravo', 'Alpha']);
    expect(names(await get('/groups?sort=createdAt'))).toEqual(['delta', 'Alpha', 'charlie', 'Bravo', 'echo_ops', 'echoXops']);
    expect(names(await get('/groups?sort=-createdAt'))).toEqual(['echoXops', 'echo_ops', 'Bravo', 'charlie', 'Alpha', 'delta']);
  });

  it('pages', async () => {
    const res = await get('/groups?page=2&pageSize=4');

    expect(res.json()).toMatchObject({ total: 6, page: 2, pageSize: 4 });
    expect(names(res)).toEqual(['echo_ops', 'echoXops']);
  });

  it('searches names case-insensitively, taking wildcards literally', async () => {
    expect(names(await get('/groups?search=ECHO'))).toEqual(['echo_ops', 'echoXops']);
    expect(names(await get('/groups?search=o_o'))).toEqual(['echo_ops']);
    expect(names(await get('/groups?search=%25'))).toEqual([]);
    expect((await get('/groups?search=alp&pageSize=1')).json()).toMatchObject({ total: 1, items: [{ name: 'Alpha' }] });
  });

  it('refuses an unknown sort and a page size over 200', async () => {
    expect(expectProblem(await get('/groups?sort=memberCount'), 400).errors).toEqual({
      sort: ['must be equal to one of the allowed values'],
    });
    expectProblem(await get('/groups?pageSize=500'), 400);
  });
});

describe('changing and deleting groups', () => {
  let payments: { id: string };
  beforeEach(async () => {
    await start(fakeInstances);
    payments = await createGroup('Payments', 'Card processing');
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice] });
  });

  it('renames a group, keeping the description when none is sent', async () => {
    const res = await send('PUT', `/groups/${payments.id}`, { name: 'Payments EU' });

    expect(res.json()).toMatchObject({ id: payments.id, name: 'Payments EU', description: 'Card processing', memberCount: 1 });
    expect((await send('PUT', `/groups/${payments.id}`, { name: 'Payments EU', description: '' })).json().description).toBe('');
    // A change of case only is no clash with itself.
    expect((await send('PUT', `/groups/${payments.id}`, { name: 'PAYMENTS eu' })).json().name).toBe('PAYMENTS eu');
    expect(groupEvents().filter((e) => (e.payload as { change: string }).change === 'updated')).toHaveLength(3);
  });

  it("answers 409 for another group's name, 404 for an unknown group and 403 to regular users", async () => {
    await createGroup('Search');

    expectProblem(await send('PUT', `/groups/${payments.id}`, { name: 'search' }), 409);
    expectProblem(await send('PUT', '/groups/nope', { name: 'Other' }), 404);
    expectProblem(await send('PUT', `/groups/${payments.id}`, { name: 'Mine' }, alice), 403);
    expect((await get(`/groups/${payments.id}`)).json().name).toBe('Payments');
  });

  it('deletes a group without instances, with its memberships', async () => {
    const res = await send('DELETE', `/groups/${payments.id}`);

    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectProblem(await get(`/groups/${payments.id}`), 404);
    expect(await h.db.selectFrom('group_members').selectAll().execute()).toEqual([]);
    expect(groupEvents().at(-1)).toEqual({
      event: 'GroupChanged',
      payload: { id: payments.id, change: 'deleted' },
      // Its former members are told although the delete took their memberships.
      audience: { kind: 'scoped', groups: ['groups'], userIds: [ids.alice] },
    });
    expectProblem(await send('DELETE', `/groups/${payments.id}`), 404);
  });

  it('refuses to delete a group holding instances unless told to move them to no group', async () => {
    instanceGroups.set('i-1', { name: 'ledger', groupId: payments.id });
    instanceGroups.set('i-2', { name: 'cache', groupId: payments.id });
    expect((await get(`/groups/${payments.id}`)).json().instanceCount).toBe(2);

    const refused = await send('DELETE', `/groups/${payments.id}`);

    expect(expectProblem(refused, 409).detail).toBe(
      'The group Payments holds 2 instances: move them to other groups first, or delete with moveInstances=true to leave them in no group.',
    );
    expect((await get(`/groups/${payments.id}`)).statusCode).toBe(200);
    expect(instanceGroups.get('i-1')?.groupId).toBe(payments.id);
    expect((await listAudit(h.db, 1))[0]).toMatchObject({ action: 'groups.delete', outcome: 'failure', detail: { instances: 2, status: 409 } });

    expect((await send('DELETE', `/groups/${payments.id}?moveInstances=true`)).statusCode).toBe(204);
    expectProblem(await get(`/groups/${payments.id}`), 404);
    expect([...instanceGroups.values()].map((i) => i.groupId)).toEqual([null, null]);
    expect((await listAudit(h.db, 1))[0]).toMatchObject({ action: 'groups.delete', outcome: 'success', detail: { movedInstances: 2 } });
  });

  it('is for admins only', async () => {
    expectProblem(await send('DELETE', `/groups/${payments.id}`, undefined, alice), 403);
    expect((await get(`/groups/${payments.id}`)).statusCode).toBe(200);
  });
});

describe('members', () => {
  let payments: { id: string };
  beforeEach(async () => {
    await start();
    payments = await createGroup('Payments');
  });

  it('adds users, answering the group; adding a member again changes nothing', async () => {
    const res = await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice, ids.bob, ids.alice] });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: payments.id, memberCount: 2 });
    expect(groupEvents().at(-1)).toMatchObject({ payload: { id: payments.id, change: 'members' } });

    const again = await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice] });
    expect(again.json().memberCount).toBe(2);
    expect(groupEvents().filter((e) => (e.payload as { change: string }).change === 'members')).toHaveLength(1);
  });

  it('refuses unknown user ids, listing them, and adds nobody', async () => {
    const res = await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice, 'ghost-1', 'ghost-2'] });

    const problem = expectProblem(res, 400);
    expect(problem.detail).toBe('No user has the id ghost-1, ghost-2.');
    expect(problem.errors).toEqual({ userIds: ['ghost-1 is not a user', 'ghost-2 is not a user'] });
    expect((await get(`/groups/${payments.id}`)).json().memberCount).toBe(0);
  });

  it('refuses an empty list, and answers 404 for an unknown group', async () => {
    expect(expectProblem(await send('POST', `/groups/${payments.id}/users`, { userIds: [] }), 400).errors).toHaveProperty('userIds');
    expectProblem(await send('POST', '/groups/nope/users', { userIds: [ids.alice] }), 404);
  });

  it('lists members paged, sorted and searched, to members and admins', async () => {
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.carol, ids.alice, ids.admin] });

    const page = await get(`/groups/${payments.id}/users?pageSize=2`, alice);
    expect(page.json()).toEqual({
      items: [
        { id: ids.alice, email: 'alice@example.com', role: 'regular' },
        { id: ids.carol, email: 'carol@example.com', role: 'regular' },
      ],
      total: 3,
      page: 1,
      pageSize: 2,
    });
    const emails = (res: { json(): { items: { email: string }[] } }) => res.json().items.map((m) => m.email);
    expect(emails(await get(`/groups/${payments.id}/users?sort=-email`))).toEqual([
      'root@example.com',
      'carol@example.com',
      'alice@example.com',
    ]);
    expect(emails(await get(`/groups/${payments.id}/users?search=CAR`))).toEqual(['carol@example.com']);
    expectProblem(await get(`/groups/${payments.id}/users?sort=createdAt`), 400);
  });

  it('lists users who are not members yet, for admins', async () => {
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice] });

    const res = await get(`/groups/${payments.id}/available-users`);
    expect(res.json()).toMatchObject({ total: 3 });
    expect(res.json().items.map((u: { email: string }) => u.email)).toEqual(['bob@example.com', 'carol@example.com', 'root@example.com']);
    expect((await get(`/groups/${payments.id}/available-users?search=ROO`)).json().items).toEqual([
      { id: ids.admin, email: 'root@example.com', role: 'admin' },
    ]);
    expectProblem(await get(`/groups/${payments.id}/available-users`, alice), 403);
    expectProblem(await get('/groups/nope/available-users'), 404);
  });

  it('removes a member, and answers 404 for one who is not', async () => {
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice] });

    expect((await send('DELETE', `/groups/${payments.id}/users/${ids.alice}`)).statusCode).toBe(204);
    expect((await get(`/groups/${payments.id}`)).json().memberCount).toBe(0);
    expect(expectProblem(await send('DELETE', `/groups/${payments.id}/users/${ids.alice}`), 404).detail).toBe(
      `The user ${ids.alice} is not a member of this group.`,
    );
    expectProblem(await send('DELETE', `/groups/nope/users/${ids.alice}`), 404);
    expect((await listAudit(h.db, 1))[0]).toMatchObject({ action: 'groups.members.remove', outcome: 'failure' });
  });

  it('lets only admins change members', async () => {
    await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.alice] });

    expectProblem(await send('POST', `/groups/${payments.id}/users`, { userIds: [ids.bob] }, alice), 403);
    expectProblem(await send('DELETE', `/groups/${payments.id}/users/${ids.alice}`, undefined, alice), 403);
    expect((await get(`/groups/${payments.id}`)).json().memberCount).toBe(1);
  });
});

describe("a group's instances", () => {
  it('answers an empty page until instances exist', async () => {
    await start();
    const group = await createGroup('Payments');
    await send('POST', `/groups/${group.id}/users`, { userIds: [ids.alice] });

    expect((await get(`/groups/${group.id}/instances`, alice)).json()).toEqual({ items: [], total: 0, page: 1, pageSize: 25 });
  });

  it('lists the instances the instances feature reports, paged, to members', async () => {
    await start(fakeInstances);
    const group = await createGroup('Payments');
    await send('POST', `/groups/${group.id}/users`, { userIds: [ids.alice] });
    instanceGroups.set('i-1', { name: 'ledger', groupId: group.id });
    instanceGroups.set('i-2', { name: 'cache', groupId: group.id });
    instanceGroups.set('i-3', { name: 'elsewhere', groupId: null });

    const res = await get(`/groups/${group.id}/instances?pageSize=1&page=2`, alice);

    expect(res.json()).toEqual({ items: [{ id: 'i-2', name: 'cache' }], total: 2, page: 2, pageSize: 1 });
    expect((await get('/groups', alice)).json().items[0].instanceCount).toBe(2);
  });
});
