import type { Instance } from '../contracts/instances';
import type { PageOf } from '../contracts/page';
import type { ApiClient } from './api';
import { ApiError, CliError } from './errors';

/** An instance named by its name or its id: names are what people type, ids what scripts keep. */
export async function resolveInstance(api: ApiClient, ref: string): Promise<Instance> {
  const page = await api.get<PageOf<Instance>>('/instances', { search: ref, pageSize: 200 });
  const byName = page.items.find((i) => i.name === ref);
  if (byName) return byName;
  try {
    return await api.get<Instance>(`/instances/${encodeURIComponent(ref)}`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
      throw new CliError(`Not found: no instance you can see is named or has the id "${ref}".`);
    }
    throw error;
  }
}

/** A group named by its name or id; `none` for no group. */
export async function resolveGroupId(api: ApiClient, ref: string): Promise<string | null> {
  if (ref === 'none') return null;
  const groups = await api.get<{ id: string; name: string }[]>('/groups/all');
  const group = groups.find((g) => g.name === ref) ?? groups.find((g) => g.id === ref);
  if (!group) throw new CliError(`Not found: no group you can see is named or has the id "${ref}".`);
  return group.id;
}
