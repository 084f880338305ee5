/**
 * The attacks of the simulation (docs/threat-model.md, "Crowds"), each on targets of its own, each
 * as the schedule of registrations and votes an attacker would send. Addresses come from ranges no
 * benign voter uses (2001:db8::/32, 100-199.x.x.x), so every vote is known to be the attack's.
 */
import { seeded } from "@productdir/fixtures"
import { DAY, draws, type Event, HOUR, type World } from "./world.ts"

export interface Attack {
  readonly name: string
  /** What it does, in a line of the report. */
  readonly what: string
  /** The products it wants to move, and which way. */
  readonly targets: ReadonlyArray<number>
  readonly direction: "up" | "down"
  /** When its first and last votes are cast. */
  readonly from: number
  readonly to: number
}

const hex = (n: number) => n.toString(16)

/**
 * Adds the attacks' agents to `world.agents` and their events to `world.events`. `top` are the
 * products an attacker would pull down (the most trusted); `obscure` ones are what it would push up.
 */
export const addAttacks = (world: World, seed: number): Array<Attack> => {
  const r = seeded(seed + 7)
  const d = draws(r)
  const day = (n: number, hour = 0) => world.start + n * DAY + hour * HOUR
  const attacks: Array<Attack> = []
  const vote = (group: string, at: number, product: number, agent: number, address: string, direction: "up" | "down") =>
    world.events.push({ kind: "vote", at, product, agent, address, group, direction } satisfies Event)
  const newAgent = (group: string, address: string, registersAt: number) => {
    world.agents.push({ address, registersAt, group })
    world.events.push({ kind: "register", at: registersAt, agent: world.agents.length - 1 })
    return world.agents.length - 1
  }
  /** A few votes on popular products over the days before, as a ring member's cover. */
  const camouflage = (group: string, agent: number, address: string, from: number, to: number, count: number) => {
    for (let k = 0; k < count; k++) vote(group, from + r.next() * (to - from), r.int(0, 300), agent, address, "up")
  }

  {
    const name = "/48 flood"
    const from = day(6, 10)
    for (let i = 0; i < 2_000; i++) vote(name, from + (i * HOUR) / 2_000, 0, -1, `2001:db8:48:${hex(i)}::1`, "down")
    attacks.push({
      name,
      what: "2,000 anonymous down votes in an hour, one per /64 of one /48",
      targets: [0],
      direction: "down",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "botnet over /24s"
    const from = day(8, 14)
    for (let i = 0; i < 1_000; i++)
      vote(name, from + (i * 10 * 60_000) / 1_000, 1, -1, `${100 + (i % 100)}.${Math.floor(i / 100)}.${i % 250}.9`, "down")
    attacks.push({
      name,
      what: "1,000 IPv4 addresses in 1,000 /24s, down votes within 10 minutes",
      targets: [1],
      direction: "down",
      from,
      to: from + 10 * 60_000
    })
  }
  {
    const name = "registration farm"
    const targets = [5_000, 5_001, 5_002, 5_003, 5_004, 5_005]
    const from = day(10, 20)
    for (let n = 2; n < 10; n++) {
      for (let i = 0; i < 200; i++) {
        const address = `2001:db8:f00d:${hex(n * 256 + i)}::1`
        const agent = newAgent(name, address, day(n, 1) + i * 60_000)
        for (const target of targets) vote(name, from + r.next() * 30 * 60_000, target, agent, address, "up")
      }
    }
    attacks.push({
      name,
      what: "1,600 registrations from one /48 over 8 days; what it got votes up 6 products in 30 minutes",
      targets,
      direction: "up",
      from,
      to: from + 30 * 60_000
    })
  }
  {
    const name = "fast ring"
    const targets = Array.from({ length: 8 }, (_, i) => 3_000 + i)
    const from = day(12, 3)
    for (let i = 0; i < 60; i++) {
      const address = `2001:db8:${hex(0x1000 + i)}:1::1`
      const registersAt = day(1 + (i % 5), 12 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      camouflage(name, agent, address, registersAt + HOUR, from, r.int(4, 12))
      for (const target of targets) vote(name, from + r.next() * HOUR, target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "60 agents, each from its own /48, up on the same 8 products within an hour",
      targets,
      direction: "up",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "slow ring"
    const targets = Array.from({ length: 10 }, (_, i) => 6_000 + i)
    const from = day(14)
    const to = day(21)
    for (let i = 0; i < 40; i++) {
      const address = `2001:db8:${hex(0x2000 + i)}:1::1`
      const registersAt = day(3 + (i % 7), 10 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      camouflage(name, agent, address, registersAt + HOUR, to, r.int(5, 20))
      for (const target of targets) vote(name, from + r.next() * (to - from), target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "40 agents, each from its own /48, up on the same 10 products spread over a week",
      targets,
      direction: "up",
      from,
      to
    })
  }
  {
    const name = "anonymous drip"
    const from = day(16)
    const to = day(23)
    let at = from
    for (let i = 0; at < to; i++) {
      vote(name, at, 8_000, -1, `${100 + (i % 100)}.${100 + Math.floor(i / 100)}.${r.int(0, 255)}.${r.int(1, 254)}`, "up")
      at += d.exponential(15 * 60_000)
    }
    attacks.push({
      name,
      what: "about 4 anonymous up votes an hour for a week, each from another /16",
      targets: [8_000],
      direction: "up",
      from,
      to
    })
  }
  {
    const name = "stolen keys"
    const targets = [10, 11, 12, 13]
    const from = day(22, 9)
    // Keys of established agents (registered in the first two days), used from one botnet.
    const victims = new Set<number>()
    while (victims.size < 30) {
      const a = r.int(0, world.agents.length - 1)
      if (world.agents[a]!.group === "agents" && world.agents[a]!.registersAt < day(2)) victims.add(a)
    }
    let i = 0
    for (const agent of victims) {
      i++
      for (const target of targets) vote(name, from + r.next() * 15 * 60_000, target, agent, `150.${i}.${i}.9`, "down")
    }
    attacks.push({
      name,
      what: "30 stolen keys of established agents, down on 4 trusted products within 15 minutes",
      targets,
      direction: "down",
      from,
      to: from + 15 * 60_000
    })
  }
  {
    // Issue 58's attacks: the next cheapest moves once the first ones were stopped.
    const name = "small rings"
    const from = day(13, 11)
    const targets: Array<number> = []
    for (let ring = 0; ring < 8; ring++) {
      // Four rings push 3 products each, four push 6: no ring reaches the 10 members a group needed before.
      const pushed = Array.from({ length: ring < 4 ? 3 : 6 }, (_, k) => 4_000 + ring * 10 + k)
      targets.push(...pushed)
      for (let i = 0; i < 6; i++) {
        const address = `2001:db8:${hex(0x3000 + ring * 16 + i)}:1::1`
        const agent = newAgent(name, address, day(10 + (i % 3), 9 + r.int(0, 8)))
        for (const target of pushed) vote(name, from + ring * 5 * 60_000 + r.next() * 10 * 60_000, target, agent, address, "up")
      }
    }
    attacks.push({
      name,
      what: "8 rings of 6 agents, each agent from its own /48; four rings push 3 products, four push 6, within minutes",
      targets,
      direction: "up",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "mixed flood"
    const target = 20
    const from = day(15, 16)
    for (let i = 0; i < 40; i++) {
      const address = `2001:db8:${hex(0x4000 + i)}:1::1`
      const agent = newAgent(name, address, day(14, 8) + i * 60_000)
      vote(name, from + r.next() * 10 * 60_000, target, agent, address, "down")
      vote(name, from + r.next() * 10 * 60_000, target, -1, `${100 + i}.${200 + (i % 50)}.${r.int(0, 255)}.9`, "down")
    }
    attacks.push({
      name,
      what: "40 agents and 40 anonymous addresses from distinct /16s, down on a trusted product within 10 minutes",
      targets: [target],
      direction: "down",
      from,
      to: from + 10 * 60_000
    })
  }
  {
    const name = "sleepers"
    const target = 100
    const from = day(12, 15)
    for (let i = 0; i < 30; i++) {
      const address = `2001:db8:${hex(0x5000 + i)}:1::1`
      // Registered on day 2, three benign votes on popular products on days 3-4: standing by the pass of day 5.
      const registersAt = day(2, 8 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      for (let k = 0; k < 3; k++) vote(name, day(3, 0) + r.next() * DAY, r.int(0, 60), agent, address, "up")
      // A week of standing later: a benign vote, then 90 s after it the turn.
      const at = from + r.next() * 60_000
      vote(name, at, r.int(60, 120), agent, address, "up")
      vote(name, at + 90_000, target, agent, address, "down")
    }
    attacks.push({
      name,
      what: "30 agents with a week of standing (three benign votes each), then each down on one product 90 s after a benign vote",
      targets: [target],
      direction: "down",
      from,
      to: from + 3 * 60_000
    })
  }
  {
    const name = "camouflaged ring"
    const targets = Array.from({ length: 8 }, (_, i) => 7_000 + i)
    const from = day(17, 10)
    for (let i = 0; i < 40; i++) {
      const address = `2001:db8:${hex(0x6000 + i)}:1::1`
      const registersAt = day(4 + (i % 3), 9 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      // Fifteen votes on the catalog's most popular products, as its benign voters vote them, before and around the push.
      const popular = new Set<number>()
      while (popular.size < 15) popular.add(r.int(0, 40))
      for (const product of popular) vote(name, registersAt + HOUR + r.next() * (from - registersAt), product, agent, address, "up")
      for (const target of targets) vote(name, from + r.next() * HOUR, target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "40 agents that also vote 15 popular products each, up on the same 8 products within an hour",
      targets,
      direction: "up",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "fresh agents"
    const target = 19_500
    const from = day(19, 12)
    for (let i = 0; i < 10; i++) {
      const address = `2001:db8:${hex(0x7000 + i)}:1::1`
      const agent = newAgent(name, address, from - 10 * 60_000)
      vote(name, from + r.next() * 60_000, target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "10 agents registered minutes before, up on an obscure product",
      targets: [target],
      direction: "up",
      from,
      to: from + 60_000
    })
  }
  return attacks
}
