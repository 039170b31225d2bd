import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { createAuthorization, type Authorization } from '../../server/authz/authorization';
import { addMembers, createGroup, noInstancesYet, type GroupInstances } from '../../server/db/groups';
import type { Db } from '../../server/db/schema';
import { addUser, cookieLogin, origin, setup, type Harness } from './helpers';
import { closeTestDb, openTestDb } from './testStore';

/** Instances i-pay (in the Payments group) and i-loose (in none); no other instance exists. */
function instancesIn(payments: () => string): GroupInstances {
  return {
    ...noInstancesYet,
    groupOfInstance: async (_db, id) => ({ 'i-pay': payments(), 'i-loose': null } as Record<string, string | null>)[id],
  };
}

describe('createAuthorization', () => {
  let db: Db;
  let authz: Authorization;
  let payments: string;
  let search: string;
  const admin = { userId: 'admin-id', role: 'admin' as const };
  let member: { userId: string; role: 'regular' };
  let outsider: { userId: string; role: 'regular' };

  beforeEach(async () => {
    db = await openTestDb();
    member = { userId: (await addUser(db, 'member@example.com')).id, role: 'regular' };
    outsider = { userId: (await addUser(db, 'outsider@example.com')).id, role: 'regular' };
    const now = new Date();
    payments = (await createGroup(db, { name: 'Payments' }, now)).id;
    search = (await createGroup(db, { name: 'Search' }, now)).id;
    await addMembers(db, payments, [member.userId], now);
    authz = createAuthorization(db, instancesIn(() => payments));
  });
  afterEach(() => closeTestDb(db));

  it('lets admins see every group, and regular users only theirs', async () => {
    expect(await authz.visibleGroupIds(admin)).toBeNull();
    expect(await authz.visibleGroupIds(member)).toEqual([payments]);
    expect(await authz.visibleGroupIds(outsider)).toEqual([]);

    expect(await authz.canSeeGroup(admin, search)).toBe(true);
    expect(await authz.canSeeGroup(member, payments)).toBe(true);
    expect(await authz.canSeeGroup(member, search)).toBe(false);
    expect(await authz.canSeeGroup(outsider, payments)).toBe(false);
  });

  it("lets a regular user see only their groups' instances; admins see all", async () => {
    expect(await authz.canSeeInstance(member, 'i-pay')).toBe(true);
    expect(await authz.canSeeInstance(outsider, 'i-pay')).toBe(false);
    // In no group: an admin's alone.
    expect(await authz.canSeeInstance(member, 'i-loose')).toBe(false);
    expect(await authz.canSeeInstance(admin, 'i-loose')).toBe(true);
    expect(await authz.canSeeInstance(member, 'i-none')).toBe(false);
    expect(await authz.canSeeInstance(admin, 'i-pay')).toBe(true);
  });

  it('shows no instance to regular users while instances do not exist', async () => {
    const before = createAuthorization(db, noInstancesYet);

    expect(await before.canSeeInstance(member, 'i-pay')).toBe(false);
    expect(await before.canSeeInstance(admin, 'i-pay')).toBe(true);
  });
});

describe('the hub asks the same authorization', () => {
  let h: Harness;
  let baseUrl: string;
  const opened: HubConnection[] = [];

  beforeEach(async () => {
    let payments = '';
    h = await setup({ groupInstances: instancesIn(() => payments) });
    payments = (await createGroup(h.db, { name: 'Payments' }, new Date())).id;
    const member = await addUser(h.db, 'member@example.com');
    await addUser(h.db, 'outsider@example.com');
    await addUser(h.db, 'root@example.com', 'admin');
    await addMembers(h.db, payments, [member.id], new Date());
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.stop().catch(() => undefined)));
    await h.close();
  });

  async function connect(email: string) {
    const connection = new HubConnectionBuilder()
      .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: await cookieLogin(h, email), Origin: origin } })
      .configureLogging(LogLevel.None)
      .build();
    opened.push(connection);
    await connection.start();
    return connection;
  }

  it('lets members join their instances, forbids outsiders, and lets admins join any', async () => {
    const member = await connect('member@example.com');
    const outsider = await connect('outsider@example.com');
    const admin = await connect('root@example.com');

    await expect(member.invoke('JoinInstance', 'i-pay')).resolves.toBeNull();
    await expect(member.invoke('JoinLogs', 'i-pay')).resolves.toBeNull();
    await expect(member.invoke('JoinBackups', 'i-pay')).resolves.toBeNull();
    await expect(member.invoke('JoinInstance', 'i-loose')).rejects.toThrow('Forbidden');
    await expect(outsider.invoke('JoinInstance', 'i-pay')).rejects.toThrow('Forbidden');
    await expect(outsider.invoke('JoinLogs', 'i-pay')).rejects.toThrow('Forbidden');
    await expect(admin.invoke('JoinInstance', 'i-loose')).resolves.toBeNull();
    await expect(admin.invoke('JoinLogs', 'i-pay')).resolves.toBeNull();
  });
});
