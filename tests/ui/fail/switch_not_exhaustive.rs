include!("../agent.rs");

#[allow(dead_code)]
enum Weapon {
    Rifle,
    Knife,
}

behavior_tree! {
    tree T(me: &mut Agent, weapon: Weapon) {
        switch(weapon) { Weapon::Rifle => action me.act() }
    }
}
fn main() {}
