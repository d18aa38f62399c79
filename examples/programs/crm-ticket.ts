// The seed's CRM story: searching needs no approval; creating a ticket pauses for one.
// Run with `agent-spaces run examples/programs/crm-ticket.ts` (you are asked) or `--approve all|none`.
import { crm } from '@capabilities/crm';

const customers = await crm.searchCustomers({ query: 'acme' });
console.log(`found ${customers.length} customers: ${customers.map((c) => c.name).join(', ')}`);
const enterprise = customers.find((c) => c.plan === 'enterprise');
if (!enterprise) throw new Error('expected an enterprise customer named Acme');

let ticketId: string | null = null;
try {
  const ticket = await crm.createTicket({ customerId: enterprise.id, subject: 'Integration issue', priority: 'high' });
  console.log(`created ticket ${ticket.id} (${ticket.priority}) for ${enterprise.name}`);
  ticketId = ticket.id;
} catch (error) {
  if ((error as { code?: string }).code !== 'APPROVAL_DENIED') throw error;
  console.log('the ticket was not approved; nothing was created');
}

export default { customers: customers.length, approved: ticketId !== null, ticketId };
