// Run a scenario through OneTable (dynamodb-onetable) against a DynamoDB endpoint and print what happened.
//
// stdin:  {"prefix": "<dir holding node_modules>", "endpoint": "http://127.0.0.1:PORT",
//          "schema": {...}, "options": {"partial": true, ...},
//          "phases": [{"table": "name", "create": true, "context": {...}, "steps": [[model, op, props, params], ...]}]}
// stdout: {"versions": {...}, "phases": [{"results": [...], "items": [...]}]}
//
// A step is (model, op, props, params) as in dynabase.model.scenario: model null means a table operation
// (transact / batch_get / batch_write / fetch / set_context / clear_context).  A params value "$name" for
// "transaction" or "batch" (or a table op's props.transaction / props.batch) names a collector shared between
// steps of the phase.  Typed values in props/params: {"$date": iso}, {"$set": [...]}, {"$bytes": base64}.
// results: one {"ok": value} or {"error": code, "message": ...} per step, values as JSON (Dates as ISO strings,
// Buffers as base64, Sets as sorted lists; find/scan as {"items", "next", "prev", "count"}).
// items: every item of the phase's table afterwards as stored: AttributeValue JSON (B as base64), unsorted.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

// OneTable may print; stdout carries only the result document
console.log = (...args) => console.error(...args)
console.warn = (...args) => console.error(...args)
console.info = (...args) => console.error(...args)

async function readStdin() {
    const chunks = []
    for await (const chunk of process.stdin) chunks.push(chunk)
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function decodeTyped(value) {
    if (Array.isArray(value)) return value.map(decodeTyped)
    if (value && typeof value == 'object') {
        const keys = Object.keys(value)
        if (keys.length == 1) {
            if (keys[0] == '$date') return new Date(value.$date)
            if (keys[0] == '$set') return new Set(value.$set.map(decodeTyped))
            if (keys[0] == '$bytes') return Buffer.from(value.$bytes, 'base64')
        }
        const out = {}
        for (const [k, v] of Object.entries(value)) out[k] = decodeTyped(v)
        return out
    }
    return value
}

function jsonable(value) {
    if (value === undefined || value === null) return null
    if (typeof value == 'object' && value.$metadata) return '<raw DynamoDB response>'
    if (value instanceof Date) return isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64')
    if (value instanceof Set) {
        return Array.from(value)
            .map(jsonable)
            .sort((a, b) => {
                const ka = `${typeof a}:${typeof a == 'number' ? String(a).padStart(30, '0') : a}`
                const kb = `${typeof b}:${typeof b == 'number' ? String(b).padStart(30, '0') : b}`
                return ka < kb ? -1 : ka > kb ? 1 : 0
            })
    }
    if (typeof value == 'bigint') return Number(value)
    if (Array.isArray(value)) return value.map(jsonable)
    if (typeof value == 'object') {
        const out = {}
        for (const [k, v] of Object.entries(value)) {
            if (v !== undefined) out[k] = jsonable(v)
        }
        return out
    }
    return value
}

function rawValue(av) {
    // AttributeValue from the SDK -> JSON (binary as base64)
    const [type, v] = Object.entries(av).find(([, x]) => x !== undefined)
    if (type == 'B') return { B: Buffer.from(v).toString('base64') }
    if (type == 'BS') return { BS: v.map((b) => Buffer.from(b).toString('base64')) }
    if (type == 'M') return { M: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rawValue(x)])) }
    if (type == 'L') return { L: v.map(rawValue) }
    return { [type]: v }
}

async function scanAll(sdk, client, table) {
    const items = []
    let start
    do {
        const page = await client.send(
            new sdk.ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start })
        )
        for (const item of page.Items || []) {
            items.push(Object.fromEntries(Object.entries(item).map(([k, v]) => [k, rawValue(v)])))
        }
        start = page.LastEvaluatedKey
    } while (start)
    return items
}

function errorResult(err) {
    return { error: err.code || err.name || 'Error', message: String(err.message || err) }
}

async function runStep(table, step, collectors) {
    let [model, op, props, params] = step
    props = decodeTyped(props || {})
    params = decodeTyped(params || {})
    const collector = (ref) => {
        if (typeof ref == 'string' && ref.startsWith('$')) {
            collectors[ref] = collectors[ref] || {}
            return collectors[ref]
        }
        return ref || {}
    }
    for (const name of ['transaction', 'batch']) {
        if (typeof params[name] == 'string') params[name] = collector(params[name])
    }
    let value
    if (model != null) {
        const m = table.getModel(model)
        if (typeof m[op] != 'function') throw new Error(`unknown model operation ${op}`)
        value = await m[op](props, params)
        if ((op == 'find' || op == 'scan') && Array.isArray(value)) {
            const page = (v) => (v === undefined ? null : v)
            value = {
                items: Array.from(value),
                next: page(value.next),
                prev: page(value.prev),
                count: page(value.count),
            }
        }
    } else if (op == 'transact') {
        value = await table.transact(props.op || 'write', collector(props.transaction), params)
    } else if (op == 'batch_get') {
        value = await table.batchGet(collector(props.batch), params)
    } else if (op == 'batch_write') {
        value = await table.batchWrite(collector(props.batch), params)
    } else if (op == 'fetch') {
        value = await table.fetch(props.models, props.properties || {}, params)
    } else if (op == 'save_schema') {
        value = await table.saveSchema(props.schema)
    } else if (op == 'set_context') {
        table.setContext(props.context, !!props.merge)
        value = null
    } else if (op == 'clear_context') {
        table.clearContext()
        value = null
    } else {
        throw new Error(`unknown table operation ${op}`)
    }
    if (value && typeof value == 'object' && value.TransactItems) value = null
    return { ok: jsonable(value) }
}

function packageVersion(prefix, name) {
    return JSON.parse(readFileSync(join(prefix, 'node_modules', name, 'package.json'), 'utf8')).version
}

async function main() {
    const input = await readStdin()
    const require = createRequire(join(input.prefix, 'node_modules', 'noop.js'))
    const sdk = require('@aws-sdk/client-dynamodb')
    const { Table } = require('dynamodb-onetable')
    const client = new sdk.DynamoDBClient({
        endpoint: input.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
        maxAttempts: 1,
    })
    const versions = {
        'dynamodb-onetable': packageVersion(input.prefix, 'dynamodb-onetable'),
        '@aws-sdk/client-dynamodb': packageVersion(input.prefix, '@aws-sdk/client-dynamodb'),
        node: process.version,
    }
    const phases = []
    for (const phase of input.phases) {
        const options = Object.assign({ partial: true }, input.options || {}, phase.options || {})
        const schema = JSON.parse(JSON.stringify(input.schema)) // OneTable annotates the schema it is given
        const table = new Table(Object.assign({ name: phase.table, client, schema }, options))
        if (phase.context) table.setContext(decodeTyped(phase.context))
        if (phase.create) await table.createTable()
        const collectors = {}
        const results = []
        for (const step of phase.steps || []) {
            try {
                results.push(await runStep(table, step, collectors))
            } catch (err) {
                results.push(errorResult(err))
            }
        }
        phases.push({ table: phase.table, results, items: await scanAll(sdk, client, phase.table) })
    }
    client.destroy()
    process.stdout.write(JSON.stringify({ versions, phases }), () => process.exit(0))
}

main().catch((err) => {
    console.error(err && err.stack ? err.stack : err)
    process.exit(1)
})
