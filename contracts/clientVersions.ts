import { Type, type Static } from 'typebox';

// Releases of Warden's command-line client (DESIGN §5 "Client version", §10; SPEC §7).

export const clientPlatforms = ['windows', 'containers'] as const;
export type ClientPlatform = (typeof clientPlatforms)[number];

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A release version: the package version, then what `git describe` says, e.g. `0.1.0-be60504-dirty`.
 * The same characters an image tag allows, so `warden:<version>` is a valid image name.
 */
export const clientVersionPattern = '^[0-9A-Za-z][0-9A-Za-z._-]{0,99}$';

export const ClientPlatformSchema = Type.Enum([...clientPlatforms]);

export const ClientVersion = Type.Object({
  version: Type.String(),
  platform: ClientPlatformSchema,
  fileName: Type.String(),
  size: Type.Integer(),
  /** Lower-case hex; also the download's ETag. */
  sha256: Type.String(),
  releasedAt: Type.String(),
  /** The CHANGELOG.md section of this version (Markdown). */
  notes: Type.String(),
  /** Exactly one version per platform is the latest: the newest release. */
  latest: Type.Boolean(),
});
export type ClientVersion = Static<typeof ClientVersion>;

export const ClientVersionParams = Type.Object(
  { version: Type.String({ pattern: clientVersionPattern, maxLength: 100 }) },
  { additionalProperties: false },
);
export const ClientPlatformQuery = Type.Object({ platform: ClientPlatformSchema }, { additionalProperties: false });

export const clientBuildStates = ['idle', 'building', 'succeeded', 'failed', 'disabled'] as const;
export type ClientBuildState = (typeof clientBuildStates)[number];

/** Where building the current version's releases stands; pushed as ClientBuildProgress while it runs. */
export const ClientBuildStatus = Type.Object({
  state: Type.Enum([...clientBuildStates]),
  /** The version being (or last) built; the server's current client version. */
  version: Type.String(),
  /** What the build does now, e.g. "Injecting the blob into warden.exe". */
  step: Type.String(),
  /** 0–100. */
  percent: Type.Number({ minimum: 0, maximum: 100 }),
  startedAt: nullable(Type.String()),
  finishedAt: nullable(Type.String()),
  error: nullable(Type.String()),
});
export type ClientBuildStatus = Static<typeof ClientBuildStatus>;

export const DeleteClientVersionResponse = Type.Object({ version: Type.String(), platform: ClientPlatformSchema });
export type DeleteClientVersionResponse = Static<typeof DeleteClientVersionResponse>;
