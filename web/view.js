// view.js — the live view's page: it keeps a mirror of the current world's
// entities from the change stream (WatchUpdate messages as proto3 JSON over
// the WebSocket /ws: the full state, then what changed), draws every visual
// by its Geometry at its pose in its Material's colour (grey without one),
// and the collisions of a link that has no visual (an MJCF geom, which
// MuJoCo both draws and collides with, or a URDF link with collisions only)
// and the shapes of ObjectWorldService's objects (a model's or link's own),
// a mesh from its file (/mesh/ID: STL, OBJ or COLLADA, with three.js's
// loaders) or, for a mesh registered with GeometryService, from the binary
// glTF the server holds of it (/mesh/ID too), or, until then or when it
// cannot be had, as the box of its scale,
// levels as their boxes and buffer zones (blue when loaded, grey when not),
// performers as orange boxes on the models they follow, the world's frames
// as axes; it lists the models, levels and performers (a click shows one's
// kind, pose and tags); its buttons send "METHOD JSON" frames the server calls as gRPC
// would. window.wkView (and #summary, as JSON) tell a test what is drawn.
'use strict';

const KINDS = ['world', 'model', 'link', 'joint', 'frame', 'visual', 'collision', 'sensor', 'light', 'actor',
               'level', 'performer'];
const SHAPE = {BOX: 1, SPHERE: 2, CYLINDER: 3, CAPSULE: 4, ELLIPSOID: 5, PLANE: 6, MESH: 7};

// id (string) -> {id, name, kind, parent, pose, geometry, colour, meshFile, uri, region, performerOf, info,
// node, drawn, mesh}
const entities = new Map();
const NO_MATERIAL = [0.7, 0.7, 0.7, 1]; // a visual whose file gives it no colour
const LOADED = 0x2255ff, UNLOADED = 0x999999, PERFORMER = 0xff8800;
const LISTED = ['model', 'level', 'performer'];
const log = [];             // {name, x, y, z, t}: poses as they arrived
let version = '0', selected = null;

// The scene, z up as SDFormat has it.
const root = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({antialias: false, preserveDrawingBuffer: true});
renderer.setSize(root.clientWidth, root.clientHeight);
root.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xffffff);
const camera = new THREE.PerspectiveCamera(50, root.clientWidth / root.clientHeight, 0.05, 1000);
camera.up.set(0, 0, 1);
camera.position.set(-14, -22, 18);
const controls = new THREE.OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0, 0);
controls.update();
const grid = new THREE.GridHelper(40, 40, 0xbbbbbb, 0xdddddd);
grid.rotation.x = Math.PI / 2;
scene.add(grid);

function bytes(b64) {
  const s = atob(b64 || '');
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function modelOf(e) {
  for (let p = e; p; p = entities.get(p.parent)) if (p.kind === 'model') return p;
  return null;
}

function shapeOf(g) {
  const s = g.scale;
  switch (g.type) {
  case SHAPE.BOX: return new THREE.BoxGeometry(g.size[0], g.size[1], g.size[2]);
  case SHAPE.SPHERE: return new THREE.SphereGeometry(g.radius, 24, 16);
  case SHAPE.ELLIPSOID: return new THREE.SphereGeometry(1, 24, 16).scale(g.size[0], g.size[1], g.size[2]);
  case SHAPE.CYLINDER: return new THREE.CylinderGeometry(g.radius, g.radius, g.length, 24).rotateX(Math.PI / 2);
  case SHAPE.CAPSULE: {
    const c = new THREE.CylinderGeometry(g.radius, g.radius, g.length + 2 * g.radius, 24);
    return c.rotateX(Math.PI / 2);
  }
  case SHAPE.PLANE: return new THREE.PlaneGeometry(g.size[0] || 10, g.size[1] || 10);
  default: // a mesh whose file the page cannot read: its scale as a box
    return new THREE.BoxGeometry(s[0] || 1, s[1] || 1, s[2] || 1);
  }
}

function readGeometry(view, at) {
  const f = (k) => view.getFloat64(at + k, true);
  return {type: view.getInt32(at, true), size: [f(8), f(16), f(24)], radius: f(32), length: f(40),
          scale: [f(72), f(80), f(88)]};
}

// Region (wk_scene_region): size, buffer, loaded.
function readRegion(view, at) {
  const f = (k) => view.getFloat64(at + k, true);
  return {size: [f(0), f(8), f(16)], buffer: f(24), loaded: view.getUint8(at + 32) !== 0};
}

// EntityInfo as entity_info.c writes it: a category byte, then the
// description and each tag, each a little-endian u32 length and its bytes.
function readInfo(b) {
  const view = new DataView(b.buffer);
  let at = 1;
  const text = () => {
    const n = view.getUint32(at, true);
    const s = new TextDecoder().decode(b.subarray(at + 4, at + 4 + n));
    at += 4 + n;
    return s;
  };
  const description = text(), tags = [];
  for (let n = view.getUint32((at += 4) - 4, true); n > 0; n--) tags.push(text());
  return {category: b[0], description, tags};
}

function entity(id) {
  if (!entities.has(id))
    entities.set(id, {id, name: '', kind: '', parent: '0', pose: null, geometry: null, colour: null, region: null,
                      performerOf: null, info: null});
  return entities.get(id);
}

function readBlock(block, types) {
  const ids = block.ids || [];
  ids.forEach((id, row) => {
    const e = entity(id);
    if (block.parents) e.parent = block.parents[row];
  });
  for (const col of block.columns || []) {
    const name = types.get(col.type);
    const packed = bytes(col.packedValues);
    const view = new DataView(packed.buffer);
    ids.forEach((id, row) => {
      const e = entity(id);
      if (name === 'Name') e.name = new TextDecoder().decode(bytes(col.values[row]));
      else if (name === 'Kind') e.kind = KINDS[packed[row]] || 'other';
      else if (name === 'ParentPose') {
        const a = row * 56, f = (k) => view.getFloat64(a + k, true);
        e.pose = [f(0), f(8), f(16), f(24), f(32), f(40), f(48)];
      } else if (name === 'Geometry') e.geometry = readGeometry(view, row * 96);
      else if (name === 'Material') e.colour = [0, 8, 16, 24].map((k) => view.getFloat64(row * 32 + k, true));
      else if (name === 'MeshFile') e.meshFile = new TextDecoder().decode(bytes(col.values[row]));
      else if (name === 'Uri') e.uri = new TextDecoder().decode(bytes(col.values[row]));
      else if (name === 'Region') e.region = readRegion(view, row * 40);
      else if (name === 'PerformerOf') e.performerOf = new TextDecoder().decode(bytes(col.values[row]));
      else if (name === 'EntityInfo') e.info = readInfo(bytes(col.values[row]));
    });
  }
  for (const t of block.removedTypes || []) {
    const name = types.get(t);
    ids.forEach((id) => {
      const e = entity(id);
      if (name === 'Geometry') e.geometry = null;
      else if (name === 'Material') e.colour = null;
      else if (name === 'Region') e.region = null;
      else if (name === 'PerformerOf') e.performerOf = null;
      else if (name === 'EntityInfo') e.info = null;
    });
  }
}

function forget(id) {
  const e = entities.get(id);
  if (e && e.node) e.node.removeFromParent ? e.node.removeFromParent() : e.node.parent && e.node.parent.remove(e.node);
  entities.delete(id);
}

// Whether e is a shape the page draws: a visual, or a collision of a link
// that has no visual to show (links, the parents of visuals in withVisuals).
// A model's or link's own shape is that of an ObjectWorldService object or
// entity, one shape for both roles.
function isDrawnShape(e, withVisuals) {
  return !!e.geometry && (e.kind === 'visual' || e.kind === 'model' || e.kind === 'link' ||
                          (e.kind === 'collision' && !withVisuals.has(e.parent)));
}

// Places every entity's node under its parent's, at its pose, and gives
// each drawn shape, level and performer its drawable.
function build() {
  const withVisuals = new Set();
  for (const e of entities.values()) {
    if (e.kind === 'visual' && e.geometry) withVisuals.add(e.parent);
    if (!e.node) e.node = new THREE.Group();
    if (e.pose) {
      e.node.position.set(e.pose[0], e.pose[1], e.pose[2]);
      e.node.quaternion.set(e.pose[4], e.pose[5], e.pose[6], e.pose[3]);
    }
  }
  for (const e of entities.values()) {
    const parent = entities.get(e.parent);
    const holder = parent ? parent.node : scene;
    if (e.node.parent !== holder) holder.add(e.node);
    e.shape = isDrawnShape(e, withVisuals);
    const wants = e.shape || e.region || (e.kind === 'frame' && parent && parent.kind === 'world');
    if (wants && !e.drawn) {
      e.drawn = e.shape ? new THREE.Mesh(shapeOf(e.geometry), new THREE.MeshBasicMaterial())
        : e.region ? regionOf(e) : new THREE.AxesHelper(1);
      e.node.add(e.drawn);
      if (e.shape && e.geometry.type === SHAPE.MESH && meshKind(e)) loadMesh(e);
    } else if (!wants && e.drawn) {
      e.node.remove(e.drawn);
      e.drawn = null;
    }
    if (e.drawn && e.shape) paint(e);
  }
  scene.updateMatrixWorld(true);
  for (const e of entities.values()) if (e.drawn && e.region) placeRegion(e);
}

// A wireframe box of size, in colour.
function wireBox(size, colour, opacity) {
  const material = new THREE.LineBasicMaterial({color: colour, transparent: opacity < 1, opacity});
  return new THREE.LineSegments(new THREE.EdgesGeometry(new THREE.BoxBufferGeometry(size[0], size[1], size[2])),
                                material);
}

// A level's box and, fainter, its buffer zone; a performer's box.
function regionOf(e) {
  const r = e.region, group = new THREE.Group();
  if (e.kind === 'level') {
    group.add(wireBox(r.size, LOADED, 1));
    group.add(wireBox(r.size.map((v) => v + 2 * r.buffer), LOADED, 0.35));
  } else {
    group.add(wireBox(r.size, PERFORMER, 1));
  }
  return group;
}

// Boxes are axis-aligned around their centre (levels.c ignores rotations);
// a performer's is centred on the model it follows.
function placeRegion(e) {
  const at = new THREE.Vector3();
  const model = e.performerOf && [...entities.values()].find((m) => m.kind === 'model' && m.name === e.performerOf &&
                                                                   entities.get(m.parent) &&
                                                                   entities.get(m.parent).kind === 'world');
  (model || e).node.getWorldPosition(at);
  e.drawn.visible = e.kind === 'level' || !!model;
  e.node.worldToLocal(at);
  e.drawn.position.copy(at);
  const q = new THREE.Quaternion();
  e.node.getWorldQuaternion(q);
  e.drawn.quaternion.copy(q.inverse());
  if (e.kind === 'level')
    for (const line of e.drawn.children) line.material.color.setHex(e.region.loaded ? LOADED : UNLOADED);
}

// A shape's colour on every mesh it draws (a COLLADA file's own materials
// stay where the world file gives the shape none).
function paint(e) {
  const rgba = e.colour || NO_MATERIAL;
  e.drawn.traverse((o) => {
    if (!o.isMesh || (!e.colour && e.mesh === 'dae')) return;
    if (!o.material.isMeshBasicMaterial) o.material = new THREE.MeshBasicMaterial();
    o.material.color.setRGB(rgba[0], rgba[1], rgba[2]);
    o.material.opacity = rgba[3];
    o.material.transparent = rgba[3] < 1;
  });
}

const Y_UP_TO_Z_UP = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), Math.PI / 2);
const LOADERS = {
  stl: () => new THREE.STLLoader(),
  obj: () => new THREE.OBJLoader(),
  dae: () => new THREE.ColladaLoader(),
  glb: () => new THREE.GLTFLoader(),
};
const REGISTERED = 'worldkit-geometry:'; // GeometryService's references

// The loader a mesh shape needs: its file's kind, 'glb' for a registered
// mesh, else undefined (drawn as its box).
function meshKind(e) {
  const kind = e.meshFile ? e.meshFile.split('.').pop().toLowerCase()
    : e.uri && e.uri.startsWith(REGISTERED) ? 'glb' : '';
  return LOADERS[kind] ? kind : undefined;
}

// Replaces a mesh shape's box with the file's shape once loaded; the box
// stays when the server or the loader cannot give it. The server answers
// 503 while the world is being written (Retry-After: 1): a failed load is
// tried again a second later, a few times.
function loadMesh(e, tries = 5) {
  const kind = meshKind(e);
  const box = e.drawn;
  const again = () => { if (tries > 1 && e.drawn === box) setTimeout(() => loadMesh(e, tries - 1), 1000); };
  LOADERS[kind]().load(`/mesh/${e.id}${location.search}`, (loaded) => {
    if (e.drawn !== box) return; // gone or redrawn meanwhile
    let shape = loaded.isBufferGeometry ? new THREE.Mesh(loaded, new THREE.MeshBasicMaterial()) : loaded;
    // COLLADA: the loader turns the file's <up_axis> to three.js's Y up;
    // turning Y up to worldkit's Z up after it stands the file up as Gazebo
    // does (a Z_UP file keeps its axes, a Y_UP file's Y becomes Z). A
    // registered mesh's glb holds its vertices as registered, in the
    // object's own axes.
    if (loaded.scene) shape = loaded.scene;
    if (kind === 'dae') shape.quaternion.premultiply(Y_UP_TO_Z_UP);
    const s = e.geometry.scale;
    shape.scale.multiply(new THREE.Vector3(s[0] || 1, s[1] || 1, s[2] || 1));
    e.node.remove(box);
    e.node.add(shape);
    e.drawn = shape;
    e.mesh = kind;
    paint(e);
    summary();
  }, undefined, again);
}

function meshesOf(drawn) {
  const meshes = [];
  drawn.traverse((o) => { if (o.isMesh) meshes.push(o); });
  return meshes;
}

// The vertices a drawable's meshes hold (a shape of three.js's own, such as
// a box, as its distinct corners).
function vertices(drawn) {
  const count = (g) => g.isBufferGeometry ? g.attributes.position.count : g.vertices.length;
  return meshesOf(drawn).reduce((n, m) => n + count(m.geometry), 0);
}

function summary() {
  scene.updateMatrixWorld(true);
  const box = renderer.domElement.getBoundingClientRect(), w = box.width, h = box.height;
  const visuals = []; // every drawn shape, visual or collision
  for (const e of entities.values()) {
    if (!e.shape || !e.drawn) continue;
    const p = new THREE.Vector3();
    e.node.getWorldPosition(p);
    const s = p.clone().project(camera);
    const model = modelOf(e);
    const top = new THREE.Box3().setFromObject(e.drawn).max.z - p.z; // its height above its origin
    visuals.push({model: model ? model.name : '', name: e.name, kind: e.kind, x: p.x, y: p.y, z: p.z,
                  px: Math.round(box.left + (s.x + 1) / 2 * w), py: Math.round(box.top + (1 - s.y) / 2 * h),
                  colour: '#' + meshesOf(e.drawn)[0].material.color.getHexString(), mesh: e.mesh || null, top,
                  vertices: vertices(e.drawn)});
  }
  const levels = [], performers = [], frames = [];
  for (const e of entities.values()) {
    if (!e.drawn || e.shape) continue;
    const p = new THREE.Vector3();
    (e.region ? e.drawn : e.node).getWorldPosition(p);
    const at = {name: e.name, x: p.x, y: p.y, z: p.z};
    if (e.kind === 'level')
      levels.push(Object.assign(at, {loaded: e.region.loaded, buffer: e.region.buffer,
                                     colour: '#' + e.drawn.children[0].material.color.getHexString()}));
    else if (e.kind === 'performer') performers.push(Object.assign(at, {model: e.performerOf, shown: e.drawn.visible}));
    else frames.push(at);
  }
  const drawables = visuals.length;
  window.wkView = {version, drawables, visuals, levels, performers, frames, log};
  document.getElementById('summary').textContent = JSON.stringify(window.wkView);
}

function listEntities() {
  const ul = document.getElementById('entities');
  ul.textContent = '';
  const listed = [...entities.values()].filter((e) => LISTED.includes(e.kind))
    .sort((a, b) => LISTED.indexOf(a.kind) - LISTED.indexOf(b.kind) || (a.name < b.name ? -1 : 1));
  for (const e of listed) {
    const li = document.createElement('li');
    li.textContent = e.kind === 'model' ? e.name : `${e.name} (${e.kind})`;
    li.dataset.id = e.id;
    if (e.id === selected) li.className = 'selected';
    li.onclick = () => { selected = e.id; show(); listEntities(); };
    ul.appendChild(li);
  }
}

function show() {
  const e = entities.get(selected);
  const p = e && e.pose;
  const performer = e && [...entities.values()].find((x) => x.performerOf === e.name);
  document.getElementById('selected').textContent = !e || !p ? '' :
    `${e.name}\nkind: ${e.kind}${performer ? ' (performer ' + performer.name + ')' : ''}` +
    `${e.region && e.kind === 'level' ? (e.region.loaded ? ', loaded' : ', unloaded') : ''}\n` +
    `tags: ${e.info && e.info.tags.length ? e.info.tags.join(', ') : '(none)'}\n` +
    `position: ${p.slice(0, 3).map((v) => v.toFixed(3)).join(' ')}\n` +
    `orientation (w x y z): ${p.slice(3).map((v) => v.toFixed(3)).join(' ')}`;
}

function apply(u) {
  if (u.full) for (const id of [...entities.keys()]) forget(id);
  const types = new Map((u.state && u.state.types || []).map((t) => [t.id, t.name]));
  for (const block of (u.state && u.state.blocks) || []) readBlock(block, types);
  for (const id of (u.state && u.state.removed) || []) forget(id);
  build();
  const now = Date.now();
  for (const block of (u.state && u.state.blocks) || [])
    for (const id of block.ids || []) {
      const e = entities.get(id);
      if (e && e.pose && e.kind === 'model') log.push({name: e.name, x: e.pose[0], y: e.pose[1], z: e.pose[2], t: now});
    }
  version = u.version;
  document.getElementById('clock').textContent = `step ${u.step || 0}, t = ${(u.simTime || 0).toFixed(3)} s`;
  listEntities();
  show();
  renderer.render(scene, camera);
  summary();
}

// The page's query (token=..., when the server asks for its token) goes
// with the WebSocket and the mesh requests.
const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws${location.search}`,
                             'worldkit-view');
socket.onmessage = (m) => {
  try {
    apply(JSON.parse(m.data));
  } catch (err) { // shown where a test reads the page
    document.getElementById('summary').textContent = 'error: ' + err + '\n' + err.stack;
  }
};
socket.onclose = () => { document.getElementById('clock').textContent = 'disconnected'; };
const send = (method, request) => socket.send(method + ' ' + JSON.stringify(request));
document.getElementById('play').onclick = () => send('SetSimulationState', {state: {state: 1}});
document.getElementById('pause').onclick = () => send('SetSimulationState', {state: {state: 2}});
document.getElementById('step').onclick = () => send('StepSimulation', {steps: 1});

(function draw() {
  controls.update();
  renderer.render(scene, camera);
  requestAnimationFrame(draw);
})();
