'use strict'
// The official Node client (@elastic/elasticsearch 7.17) against a quarry
// node at QUARRY_URL: nodes info, the cat APIs in JSON and cluster settings
// with remote seeds, as an application using the client calls them.
//
//   QUARRY_URL=http://127.0.0.1:9200 node --test .ci/clients/node/
//
// Uses its own indices (ccat-*) and remote alias (ccat_remote) so it can run
// beside clients.test.js.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const os = require('node:os')
const { Client, errors } = require('@elastic/elasticsearch')

const url = process.env.QUARRY_URL || 'http://127.0.0.1:9200'
const clusterName = process.env.QUARRY_CLUSTER_NAME || 'quarry'
const client = new Client({ node: url, maxRetries: 0, requestTimeout: 30000 })

async function raw (promise) {
  try {
    return await promise
  } catch (err) {
    if (err instanceof errors.ResponseError) return err.meta
    throw err
  }
}

describe('official client: nodes, cat and cluster settings', () => {
  before(async () => {
    await client.indices.delete({ index: 'ccat-*' }, { ignore: [404] })
    await client.indices.create({ index: 'ccat-a', body: { settings: { number_of_replicas: 0 }, aliases: { 'ccat-alias': { is_write_index: true } } } })
    await client.indices.create({ index: 'ccat-b', body: { settings: { number_of_shards: 2, number_of_replicas: 0 } } })
    await client.bulk({
      refresh: true,
      body: [
        { index: { _index: 'ccat-a', _id: '1' } }, { n: 1 },
        { index: { _index: 'ccat-a', _id: '2' } }, { n: 2 },
        { index: { _index: 'ccat-a', _id: '3' } }, { n: 3 }
      ]
    })
  })

  after(async () => {
    await client.indices.delete({ index: 'ccat-*' }, { ignore: [404] })
    await client.cluster.putSettings({ body: { persistent: { 'cluster.remote.ccat_remote.*': null } } })
    await client.close()
  })

  it('nodes.info with os,process,plugins,ingest', async () => {
    const { body, statusCode } = await client.nodes.info({ node_id: '_local', metric: 'os,process,plugins,ingest' })
    assert.equal(statusCode, 200)
    assert.deepEqual(body._nodes, { total: 1, successful: 1, failed: 0 })
    assert.equal(body.cluster_name, clusterName)
    const ids = Object.keys(body.nodes)
    assert.equal(ids.length, 1)
    const node = body.nodes[ids[0]]
    assert.equal(node.version, '7.17.0')
    assert.deepEqual(node.roles, ['data', 'ingest', 'master', 'remote_cluster_client'])
    assert.equal(node.os.available_processors, os.cpus().length)
    assert.equal(node.os.allocated_processors, Math.min(os.cpus().length, 32))
    assert.equal(node.os.arch, os.arch() === 'x64' ? 'amd64' : os.arch())
    assert.equal(node.os.refresh_interval_in_millis, 1000)
    assert.equal(typeof node.process.id, 'number')
    assert.equal(node.process.mlockall, false)
    assert.deepEqual(node.plugins, [])
    assert.ok(node.modules.every((m) => m.has_native_controller === false && typeof m.name === 'string'))
    assert.deepEqual(node.ingest, { processors: [] })
    assert.equal(node.jvm, undefined)

    // The same node through the metric-only and node-only path forms.
    const byMetric = await client.nodes.info({ metric: 'process' })
    assert.deepEqual(Object.keys(byMetric.body.nodes), ids)
    assert.deepEqual(Object.keys(byMetric.body.nodes[ids[0]].process).sort(), ['id', 'mlockall', 'refresh_interval_in_millis'])
    const byName = await client.nodes.info({ node_id: node.name })
    assert.deepEqual(Object.keys(byName.body.nodes), ids)
    const bad = await raw(client.nodes.info({ node_id: '_local', metric: 'nope' }))
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.body.error.type, 'illegal_argument_exception')
  })

  it('cat.indices / cat.count / cat.aliases / cat.shards with format=json', async () => {
    const indices = await client.cat.indices({ index: 'ccat-*', format: 'json', h: 'index,health,pri,rep,docs.count', s: 'index' })
    assert.deepEqual(indices.body, [
      { index: 'ccat-a', health: 'green', pri: '1', rep: '0', 'docs.count': '3' },
      { index: 'ccat-b', health: 'green', pri: '2', rep: '0', 'docs.count': '0' }
    ])
    const count = await client.cat.count({ index: 'ccat-a', format: 'json', h: 'count' })
    assert.deepEqual(count.body, [{ count: '3' }])
    const aliases = await client.cat.aliases({ name: 'ccat-*', format: 'json' })
    assert.deepEqual(aliases.body, [{ alias: 'ccat-alias', index: 'ccat-a', filter: '-', 'routing.index': '-', 'routing.search': '-', is_write_index: 'true' }])
    const shards = await client.cat.shards({ index: 'ccat-b', format: 'json', h: 'index,shard,prirep,state,docs', s: 'shard:desc' })
    assert.deepEqual(shards.body, [
      { index: 'ccat-b', shard: '1', prirep: 'p', state: 'STARTED', docs: '0' },
      { index: 'ccat-b', shard: '0', prirep: 'p', state: 'STARTED', docs: '0' }
    ])
  })

  it('cat.health / cat.nodes / cat.master / cat.plugins with format=json', async () => {
    const health = await client.cat.health({ format: 'json', h: 'cluster,node.total,node.data' })
    assert.deepEqual(health.body, [{ cluster: clusterName, 'node.total': '1', 'node.data': '1' }])
    const info = await client.nodes.info({ metric: 'process' })
    const [id] = Object.keys(info.body.nodes)
    const nodes = await client.cat.nodes({ format: 'json', h: 'id,name,node.role,master', full_id: true })
    assert.deepEqual(nodes.body, [{ id, name: info.body.nodes[id].name, 'node.role': 'dimr', master: '*' }])
    const master = await client.cat.master({ format: 'json' })
    assert.equal(master.body[0].id, id)
    const plugins = await client.cat.plugins({ format: 'json' })
    assert.deepEqual(plugins.body, [])
    const text = await client.cat.count({ index: 'ccat-a', h: 'count', v: true })
    assert.equal(text.body, 'count\n    3\n')
  })

  it('indices.putIndexTemplate is applied at index creation; cat.templates', async () => {
    await client.indices.putIndexTemplate({
      name: 'ccat-tpl',
      body: { index_patterns: ['ccat-t*'], priority: 5, template: { settings: { number_of_shards: 3, number_of_replicas: 0 }, mappings: { properties: { k: { type: 'keyword' } } }, aliases: { 'ccat-t-all': {} } } }
    })
    await client.indices.create({ index: 'ccat-t1', body: { mappings: { properties: { n: { type: 'long' } } } } })
    const { body } = await client.indices.get({ index: 'ccat-t1' })
    assert.equal(body['ccat-t1'].settings.index.number_of_shards, '3')
    assert.deepEqual(body['ccat-t1'].mappings, { properties: { k: { type: 'keyword' }, n: { type: 'long' } } })
    assert.deepEqual(body['ccat-t1'].aliases, { 'ccat-t-all': {} })
    const cat = await client.cat.templates({ name: 'ccat-*', format: 'json' })
    assert.deepEqual(cat.body, [{ name: 'ccat-tpl', index_patterns: '[ccat-t*]', order: '5', version: null, composed_of: '[]' }])
    await client.indices.deleteIndexTemplate({ name: 'ccat-tpl' })
    const gone = await raw(client.indices.getIndexTemplate({ name: 'ccat-tpl' }))
    assert.equal(gone.statusCode, 404)
  })

  it('cluster.putSettings with remote seeds, getSettings and remote info', async () => {
    const put = await client.cluster.putSettings({
      body: { persistent: { cluster: { remote: { ccat_remote: { seeds: ['127.0.0.1:9300'], skip_unavailable: true } } } } }
    })
    assert.deepEqual(put.body, {
      acknowledged: true,
      persistent: { cluster: { remote: { ccat_remote: { seeds: ['127.0.0.1:9300'], skip_unavailable: 'true' } } } },
      transient: {}
    })
    const flat = await client.cluster.putSettings({ flat_settings: true, body: { persistent: { 'cluster.remote.ccat_remote.seeds': ['127.0.0.1:9300', 'localhost:9301'] } } })
    assert.deepEqual(flat.body.persistent, { 'cluster.remote.ccat_remote.seeds': ['127.0.0.1:9300', 'localhost:9301'] })
    const got = await client.cluster.getSettings({ flat_settings: true })
    assert.deepEqual(got.body.persistent['cluster.remote.ccat_remote.seeds'], ['127.0.0.1:9300', 'localhost:9301'])
    assert.equal(got.body.persistent['cluster.remote.ccat_remote.skip_unavailable'], 'true')
    const remote = await client.cluster.remoteInfo()
    assert.deepEqual(remote.body.ccat_remote, {
      connected: false,
      mode: 'sniff',
      seeds: ['127.0.0.1:9300', 'localhost:9301'],
      num_nodes_connected: 0,
      max_connections_per_cluster: 3,
      initial_connect_timeout: '30s',
      skip_unavailable: true
    })
    const bad = await raw(client.cluster.putSettings({ body: { persistent: { 'cluster.remote.ccat_remote.seeds': ['no-port'] } } }))
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.body.error.type, 'illegal_argument_exception')
    const unknown = await raw(client.cluster.putSettings({ body: { transient: { 'no.such.setting': 1 } } }))
    assert.equal(unknown.statusCode, 400)
    assert.equal(unknown.body.error.reason, 'transient setting [no.such.setting], not recognized')
  })
})
