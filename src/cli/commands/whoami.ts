import fs from 'node:fs';
import path from 'node:path';
import { parseCommandArgs } from '../main.js';
import type { Command } from '../command.js';
import type { CurrentUser } from '../../main/core/security/security-provider.js';

/** The principals lines `trawl whoami` prints. */
export function describeUser(u: CurrentUser): string {
  const lines = [u.display];
  lines.push(`user: ${u.user}${u.id ? ` (${u.id})` : ''}`);
  if (u.groups?.length) lines.push(`groups: ${u.groups.map((g) => `${g.name} (${g.id})`).join(', ')}`);
  lines.push(`principals: ${u.principals.join(', ')}`);
  return lines.join('\n');
}

/** `trawl whoami`: who searches run as (from the OS, or as the daemon sees the caller). */
export const whoamiCommand: Command = {
  name: 'whoami',
  summary: 'the user and groups searches are trimmed to',
  usage: 'whoami [--json] [--daemon PATH]',
  async run({ args, dataDir, io, service }) {
    const { values } = parseCommandArgs(
      args,
      { json: { type: 'boolean' }, daemon: { type: 'string' } },
      false,
    );
    const { resolveDaemonSocket, connectDaemon } = await import('../../daemon/daemon-client.js');
    const socket = resolveDaemonSocket({ flag: values.daemon, env: io.env, dataDir });
    let user: CurrentUser;
    if (socket) {
      const client = await connectDaemon(socket);
      try {
        user = await client.request('whoami', {});
      } finally {
        client.close();
      }
    } else if (fs.existsSync(path.join(dataDir, 'index.sqlite'))) {
      // As searches see this user: with the SIDs (and names) of the index's SMB servers.
      user = (await service()).whoami();
    } else {
      const { platformSecurity } = await import('../../main/core/security/platform-security.js');
      user = platformSecurity().currentUser();
    }
    io.out(values.json ? JSON.stringify(user) : describeUser(user));
    return 0;
  },
};
