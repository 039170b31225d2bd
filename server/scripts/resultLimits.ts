import { scriptLimits } from '../../contracts/scripts';

/**
 * What a run keeps of its rows: at most maxRows and maxResultBytes per statement, and
 * maxRunResultBytes over the whole run, so a SELECT of a big table neither fills the server's memory
 * nor the store. Rows past the limits are counted, not kept.
 */
export class RowBudget {
  private runBytes = 0;

  /** A keeper for one statement's rows. */
  statement() {
    const rows: (string | null)[][] = [];
    let bytes = 0;
    let count = 0;
    let truncated = false;
    return {
      add: (row: (string | null)[]) => {
        count++;
        if (truncated) return;
        const size = JSON.stringify(row).length;
        if (rows.length >= scriptLimits.maxRows || bytes + size > scriptLimits.maxResultBytes || this.runBytes + size > scriptLimits.maxRunResultBytes) {
          truncated = true;
          return;
        }
        rows.push(row);
        bytes += size;
        this.runBytes += size;
      },
      result: () => ({ rows, rowCount: count, ...(truncated && { truncated }) }),
    };
  }
}
