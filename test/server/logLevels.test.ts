import { etcdLevel, parseEtcdZapLine, parsePgJsonLine, pgLevel } from '../../server/logs/engineLogLines';

describe('engine log level mapping (DESIGN §5)', () => {
  it.each([
    ['DEBUG', 'warning', 'debug'],
    ['DEBUG', 'debug1', 'debug'],
    ['DEBUG', 'debug3', 'verbose'],
    ['LOG', undefined, 'information'],
    ['INFO', undefined, 'information'],
    ['NOTICE', undefined, 'information'],
    ['WARNING', undefined, 'warning'],
    ['ERROR', undefined, 'error'],
    ['FATAL', undefined, 'fatal'],
    ['PANIC', undefined, 'fatal'],
  ])('pg %s at log_min_messages %s → %s', (severity, minMessages, level) => {
    expect(pgLevel(severity, minMessages)).toBe(level);
  });

  it.each([
    ['debug', 'debug'],
    ['info', 'information'],
    ['warn', 'warning'],
    ['error', 'error'],
    ['panic', 'fatal'],
    ['fatal', 'fatal'],
  ])('etcd %s → %s', (level, mapped) => {
    expect(etcdLevel(level)).toBe(mapped);
  });

  it('ignores lines that are not the engine JSON format', () => {
    expect(parsePgJsonLine('2026-11-22 LOG: plain text')).toBeNull();
    expect(parsePgJsonLine('{"broken"')).toBeNull();
    expect(parseEtcdZapLine('[]')).toBeNull();
    expect(parseEtcdZapLine('{"level":"info"}')).toBeNull();
  });
});
