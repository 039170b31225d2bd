import { routesToLeaderAlone } from '../../../server/engines/pgCluster';

// `show stat` as HAProxy 2.6 answers it on its runtime socket: a header, then a row per frontend,
// server and backend. Only pxname, svname, status and check_status matter here.
const header = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,hanafail,req_rate,req_rate_max,req_tot,cli_abrt,srv_abrt,comp_in,comp_out,comp_byp,comp_rsp,lastsess,last_chk,last_agt,qtime,ctime,rtime,ttime,agent_status,agent_code,agent_duration,check_desc,agent_desc,check_rise,check_fall,check_health,agent_rise,agent_fall,agent_health,addr,cookie,mode,algo,conn_rate,conn_rate_max,conn_tot,intercepted,dcon,dses,wrew,connect,reuse,cache_lookups,cache_hits,srv_icur,src_ilim,qtime_max,ctime_max,rtime_max,ttime_max,eint,idle_conn_cur,safe_conn_cur,used_conn_cur,need_conn_est,uweight,agg_server_status,agg_server_check_status,agg_check_status,-,ssl_sess,ssl_reused_sess,ssl_failed_handshake,h2_headers_rcvd,h2_data_rcvd,h2_settings_rcvd,h2_rst_stream_rcvd,h2_goaway_rcvd,h2_detected_conn_protocol_errors,h2_detected_strm_protocol_errors,h2_rst_stream_resp,h2_goaway_resp,h2_open_connections,h2_backend_open_streams,h2_total_connections,h2_backend_total_streams,h1_open_connections,h1_open_streams,h1_total_connections,h1_total_streams,h1_bytes_in,h1_bytes_out,h1_spliced_bytes_in,h1_spliced_bytes_out,';
const columns = header.replace(/^#\s*/, '').split(',');
const row = (pxname: string, svname: string, status: string, check: string) =>
  columns.map((c) => ({ pxname, svname, status, check_status: check })[c as 'pxname'] ?? '').join(',');
const stats = (...servers: [string, string, string][]) =>
  [
    header,
    row('read_write', 'FRONTEND', 'OPEN', ''),
    ...servers.map(([name, status, check]) => row('read_write', name, status, check)),
    row('read_write', 'BACKEND', 'UP', ''),
    // The read-only address's members are not the read-write address's.
    row('read_only', 'i-1-1', 'UP', 'L7OK'),
    '',
  ].join('\n');

describe('whether HAProxy sends the read-write address to the leader alone', () => {
  it('waits while a member is still counted up before its first check (a proxy just started)', () => {
    expect(routesToLeaderAlone(stats(['i-1-1', 'UP 1/2', 'INI'], ['i-1-2', 'UP', 'L7OK'], ['i-1-3', 'DOWN', 'L7STS']), 'i-1-2')).toBe(false);
    expect(routesToLeaderAlone(stats(['i-1-1', 'DOWN', 'L7STS'], ['i-1-2', 'UP 1/2', 'INI'], ['i-1-3', 'DOWN', 'L7STS']), 'i-1-2')).toBe(false);
  });

  it('waits while the leader is down from a check that ran before it served', () => {
    expect(routesToLeaderAlone(stats(['i-1-1', 'DOWN', 'L4CON'], ['i-1-2', 'DOWN', 'L4CON'], ['i-1-3', 'DOWN', 'L4CON']), 'i-1-2')).toBe(false);
  });

  it('is done when the leader is up after a check and every other member down', () => {
    expect(routesToLeaderAlone(stats(['i-1-1', 'DOWN', 'L7STS'], ['i-1-2', 'UP', 'L7OK'], ['i-1-3', 'DOWN', 'L7STS']), 'i-1-2')).toBe(true);
    expect(routesToLeaderAlone(stats(['i-1-1', 'DOWN', 'L7STS'], ['i-1-2', 'UP', 'L7OK'], ['i-1-3', 'UP', 'L7OK']), 'i-1-2')).toBe(false);
  });

  it('is not done on an answer that is no statistics (a proxy not yet listening on its socket)', () => {
    expect(routesToLeaderAlone('', 'i-1-2')).toBe(false);
    expect(routesToLeaderAlone('Unknown command\n', 'i-1-2')).toBe(false);
  });
});
