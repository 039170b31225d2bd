// WAL positions and segments of a PostgreSQL 15 server with the default 16 MiB segments, and how late
// each segment reached the archive, from samples of the server's write position and its archiver.

export const walSegmentBytes = 16 * 1024 * 1024;
const segmentsPerLogId = 2 ** 32 / walSegmentBytes;

/** `16/B374D848` as a byte position. */
export function lsnBytes(lsn: string): number {
  const [high, low] = lsn.split('/');
  return parseInt(high, 16) * 2 ** 32 + parseInt(low, 16);
}

/** The name of the segment holding the byte at `position` on `timeline`. */
export function segmentName(timeline: number, position: number): string {
  const segment = Math.floor(position / walSegmentBytes);
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  return hex(timeline) + hex(Math.floor(segment / segmentsPerLogId)) + hex(segment % segmentsPerLogId);
}

/** The byte position just past a segment's end: everything before it is in that segment or earlier ones. */
export function segmentEnd(name: string): number {
  return (parseInt(name.slice(8, 16), 16) * segmentsPerLogId + parseInt(name.slice(16, 24), 16) + 1) * walSegmentBytes;
}

/** One reading of the server: where it has written WAL to, and what its archiver last reported (server clock, ms). */
export interface ArchiverSample {
  at: number;
  writtenTo: number;
  lastArchivedWal: string | null;
  lastArchivedAt: number | null;
}

export interface SegmentLag {
  segment: string;
  /** When the server wrote past the segment's end, interpolated between the two samples around it. */
  endedAt: number;
  /** The archiver's time for it, or (when several were archived between two samples) for the newest of them. */
  archivedAt: number;
}

/**
 * The lag of each segment the samples saw end and then archived: its archived time minus the moment
 * the server wrote past its end. Segments still waiting when the samples stop are left out.
 */
export function segmentLags(samples: ArchiverSample[], timeline: number): SegmentLag[] {
  const lags: SegmentLag[] = [];
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1];
    const after = samples[i];
    let end = (Math.floor(before.writtenTo / walSegmentBytes) + 1) * walSegmentBytes;
    for (; end <= after.writtenTo; end += walSegmentBytes) {
      const segment = segmentName(timeline, end - 1);
      const endedAt = before.at + ((end - before.writtenTo) / (after.writtenTo - before.writtenTo)) * (after.at - before.at);
      // Names of one timeline sort as their positions do.
      const archived = samples.slice(i).find((s) => s.lastArchivedWal !== null && s.lastArchivedWal >= segment);
      if (archived?.lastArchivedAt != null) lags.push({ segment, endedAt, archivedAt: archived.lastArchivedAt });
    }
  }
  return lags;
}
